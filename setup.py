"""The build copies spec/schemas into the package (reference_server/spec/schemas), so that an installed wheel checks
requests against the same JSON Schemas as the checkout does; spec/ itself stays where the project's layout puts it.
Everything else about the package is in pyproject.toml."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

SCHEMAS = Path(__file__).resolve().parent / "spec" / "schemas"


class BuildWithSchemas(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads spec/schemas in the checkout itself
        target = Path(self.build_lib) / "reference_server" / "spec" / "schemas"
        target.mkdir(parents=True, exist_ok=True)
        for schema in sorted(SCHEMAS.glob("*.json")):
            shutil.copyfile(schema, target / schema.name)


setup(cmdclass={"build_py": BuildWithSchemas})
