"""Hydra entry point: `python launch/judge.py [key=value ...]` (same as `medrealmm judge`)."""

from medrealmm.cli import hydra_app

if __name__ == "__main__":
    hydra_app("judge")()
