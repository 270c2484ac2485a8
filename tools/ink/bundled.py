"""Keeps the files compiled into the library fresh: Sources/CBundledFiles/bundled_files.S `.incbin`s models/
(registry.json, the ink models and their sidecars), and SwiftPM does not see that dependency, so a script that
writes into models/ touches bundled_files.S and the next `swift build` recompiles it.
Tests/LiteTasksTests/BundledFilesTests.swift catches a build that missed it."""
import os

ROOT = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SOURCE = os.path.join(ROOT, "Sources", "CBundledFiles", "bundled_files.S")


def touch_if_bundled(*paths):
    """Touches bundled_files.S when one of `paths` is in models/."""
    models = os.path.join(ROOT, "models")
    if any(os.path.dirname(os.path.realpath(p)) == models for p in paths) and os.path.exists(SOURCE):
        os.utime(SOURCE)
