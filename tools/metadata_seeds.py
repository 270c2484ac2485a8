#!/usr/bin/env python3
"""Seeds for the model-metadata fuzzer (tools/fuzz.sh): of each model given, its TFLite metadata FlatBuffer (the
buffer whose file identifier is "M001") and its associated files as a zip archive of their own (stored entries, with
offsets from the start of the archive, as AssociatedFiles reads them when the archive is the whole input).

Usage: tools/metadata_seeds.py OUTPUT_DIR MODEL...
"""
import io
import os
import struct
import sys
import zipfile


def metadata_buffer(data):
    """The metadata FlatBuffer: a [ubyte] vector of the model whose bytes 4-8 are "M001" (its length precedes it)."""
    at = data.find(b"M001")
    while at >= 8:
        length = struct.unpack_from("<I", data, at - 8)[0]
        if 8 <= length <= len(data) - (at - 4):
            return data[at - 4:at - 4 + length]
        at = data.find(b"M001", at + 1)
    return None


def archive(path):
    """The model's associated files rewritten as a stand-alone stored zip, or None when it has none."""
    try:
        with zipfile.ZipFile(path) as source:
            members = [(name, source.read(name)) for name in source.namelist()]
    except (zipfile.BadZipFile, OSError):
        return None
    if not members:
        return None
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as target:
        for name, contents in members:
            # Labels files are up to 37 KB; the first 4 KB of each keep the seed short.
            target.writestr(name, contents[:4096])
    return out.getvalue()


def main():
    output, models = sys.argv[1], sys.argv[2:]
    os.makedirs(output, exist_ok=True)
    for path in models:
        name = os.path.splitext(os.path.basename(path))[0]
        with open(path, "rb") as f:
            data = f.read()
        for suffix, seed in (("metadata", metadata_buffer(data)), ("zip", archive(path))):
            if seed:
                with open(os.path.join(output, f"{name}.{suffix}"), "wb") as f:
                    f.write(seed)


if __name__ == "__main__":
    main()
