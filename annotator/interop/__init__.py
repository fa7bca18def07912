"""Moving annotations in and out: Thresh, Label Studio (through ``label-studio-sdk``),
InfoLossQA-shaped files, and this tool's own JSONL/CSV.

``records`` holds the common shape every format is read into; ``annotations_store`` writes
it (all or nothing) and reads a project back; ``importing`` / ``exporting`` dispatch by
format. Format details and the round-trip guarantees: docs/interop.md.
"""

# The annotation formats `annotator import --format` offers. Here, not in ``importing``:
# the command's option list needs the names at start-up, and ``importing`` loads every
# reader (the Label Studio one brings label-studio-sdk), which a document import never uses.
ANNOTATION_FORMATS = ("thresh", "labelstudio", "labelstudio-min", "infolossqa",
                      "annotations-jsonl", "annotations-csv")
