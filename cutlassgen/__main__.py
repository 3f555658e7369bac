from .cli import main

if __name__ == "__main__":  # not when a spawned worker process (tune on several GPUs) imports it
    raise SystemExit(main())
