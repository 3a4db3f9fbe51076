"""Hydra entry point: `python launch/validate.py [key=value ...]` (same as `medrealmm validate`)."""

from medrealmm.cli import hydra_app

if __name__ == "__main__":
    hydra_app("validate")()
