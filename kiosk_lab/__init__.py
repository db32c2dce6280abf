"""The lab: what makes and measures the card reader, never loaded by the kiosk at the table.

`synth` renders synthetic table scenes and writes data sets; `training` prepares crops, trains,
distils and quantises the networks; `evaluation` scores the reader and draws the model card's
figures; `groundtruth` turns a rendered scene into exact detections; `bench` holds the
benchmarks behind `kiosk bench`; `commands` the lab's subcommands of the one `kiosk` CLI
(train, eval, quantize, bench). The lab imports the runtime (`kiosk`), never the reverse.
"""
