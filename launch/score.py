"""Hydra entry point: `python launch/score.py [key=value ...]` (same as `medrealmm score`)."""

from medrealmm.cli import hydra_app

if __name__ == "__main__":
    hydra_app("score")()
