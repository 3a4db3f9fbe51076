"""Hydra entry point: `python launch/merge.py [key=value ...]` (same as `medrealmm merge`)."""

from medrealmm.cli import hydra_app

if __name__ == "__main__":
    hydra_app("merge")()
