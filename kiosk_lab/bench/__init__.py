"""The benchmarks behind `kiosk bench TARGET`: each module has `add_arguments(parser)` and `run(args)`."""
