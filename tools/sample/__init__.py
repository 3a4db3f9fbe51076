"""The bundled sample's builder (:mod:`tools.sample.builder`) and its drawings (:mod:`tools.sample.draw`).

Outside the runtime package on purpose: nothing at runtime builds the sample; it reads the committed files
under ``medrealmm/data/sample/``. Run ``python -m tools.sample.builder`` from the repository root.
"""
