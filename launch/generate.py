"""Hydra entry point: `python launch/generate.py [key=value ...]` (same as `medrealmm generate`)."""

from medrealmm.cli import hydra_app

if __name__ == "__main__":
    hydra_app("generate")()
