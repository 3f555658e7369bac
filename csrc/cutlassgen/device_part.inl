// The device half of a split sm90 build: only the kernel, with a fixed C name so that the host half can find it in
// the embedded cubin. Compiled with nvcc -cubin -DCUTLASSGEN_DEVICE_PART; the body is CUTLASS's device_kernel.
extern "C" __global__ void __launch_bounds__(GemmKernel::MaxThreadsPerBlock, GemmKernel::MinBlocksPerMultiprocessor)
cutlassgen_gemm_kernel(CUTLASS_GRID_CONSTANT typename GemmKernel::Params const params) {
  extern __shared__ char smem[];
  GemmKernel op;
  op(params, smem);
}
