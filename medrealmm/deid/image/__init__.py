"""Image de-identification: detectors (faces, QR/barcodes, OCR'd identifiers) behind one interface,
black-box masking and metadata removal."""
