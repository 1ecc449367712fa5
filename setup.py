"""The build copies what the package reads of spec/ into it (reference_server/spec/): the JSON Schemas, the portable
features and the requirement catalogue, so that an installed wheel checks requests against the same schemas and runs
the same conformance suite as the checkout does (reference_server/spec_files.py finds them); spec/ itself stays where
the project's layout puts it. Everything else about the package is in pyproject.toml."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

SPEC = Path(__file__).resolve().parent / "spec"
CARRIED = ["schemas/*.json", "features/a2a/*.feature", "requirements.toml"]  # what the package reads of spec/


class BuildWithSpec(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads spec/ in the checkout itself
        target = Path(self.build_lib) / "reference_server" / "spec"
        for pattern in CARRIED:
            for source in sorted(SPEC.glob(pattern)):
                copy = target / source.relative_to(SPEC)
                copy.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, copy)


setup(cmdclass={"build_py": BuildWithSpec})
