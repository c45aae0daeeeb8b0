from roost.cli import main

# Guarded: `--workers` spawns processes that import this module under another name.
if __name__ == "__main__":
    main()
