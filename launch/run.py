"""Hydra entry point: `python launch/run.py [key=value ...]` (same as `medrealmm run`)."""

from medrealmm.cli import hydra_app

if __name__ == "__main__":
    hydra_app("run")()
