"""Data sets, training, distillation and quantisation of the reader's networks (`kiosk train`, `kiosk quantize`)."""
