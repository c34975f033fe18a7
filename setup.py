"""Maps the top-level folders into the ``kspec`` namespace (``kspec.model`` is ``model/``)."""

from setuptools import find_packages, setup

ROOTS = {"kspec.model": "model", "kspec.conformance": "conformance", "kspec.tla": "tla"}

DATA = ["*.tla", "*.cfg", "*.lark", "*.json", "*.xml", "*.txt", "*.go", "*.java", "*.toml"]

packages: list[str] = []
package_dir: dict[str, str] = {}
for name, folder in ROOTS.items():
    package_dir[name] = folder
    packages.append(name)
    packages += [f"{name}.{sub}" for sub in find_packages(folder)]

setup(
    packages=packages,
    package_dir=package_dir,
    package_data={name: DATA for name in packages},
    include_package_data=True,
)
