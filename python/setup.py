"""Build the mmnc Python package against the libmmnc that CMake built.

    make                                    # builds build/libmmnc.so (from the repository root)
    pip install --no-build-isolation --no-deps ./python

The extension mmnc/_mmnc.c includes only include/mmnc.h and links the shared
library build/libmmnc.so.  A copy of that library (libmmnc.so.0, its SONAME)
is placed next to the extension, which finds it through the rpath $ORIGIN: the
installed package does not depend on the build directory staying where it
was.  MMNC_BUILD_DIR names another CMake build directory (default: ../build
from this file); MMNC_INCLUDE_DIR another include directory.
"""
import os
import shutil

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BUILD = os.path.abspath(os.environ.get("MMNC_BUILD_DIR", os.path.join(ROOT, "build")))
INCLUDE = os.path.abspath(os.environ.get("MMNC_INCLUDE_DIR", os.path.join(ROOT, "include")))
SONAME = "libmmnc.so.0"


def _version():
    with open(os.path.join(INCLUDE, "mmnc.h")) as f:
        for line in f:
            if line.startswith("#define MMNC_VERSION_STRING"):
                return line.split('"')[1]
    raise RuntimeError("no MMNC_VERSION_STRING in " + INCLUDE + "/mmnc.h")


def _has_model_api():
    """True when the library defines the model API (mmnc_model_*), not only declares it."""
    lib = os.path.join(BUILD, SONAME)
    with open(lib, "rb") as f:
        return b"mmnc_model_predict" in f.read()


class BuildExt(build_ext):
    """build_ext that first checks the library exists and then copies it beside the extension."""

    def run(self):
        lib = os.path.join(BUILD, SONAME)
        if not os.path.exists(lib):
            raise SystemExit(f"mmnc: {lib} not found: build the library first (make, in {ROOT}), "
                             "or set MMNC_BUILD_DIR to a CMake build directory")
        if _has_model_api():
            for ext in self.extensions:
                ext.define_macros.append(("MMNC_PY_HAVE_MODEL", "1"))
        super().run()
        for ext in self.extensions:
            dest = os.path.dirname(self.get_ext_fullpath(ext.name))
            os.makedirs(dest, exist_ok=True)
            shutil.copyfile(lib, os.path.join(dest, SONAME))


setup(
    name="mmnc",
    version=_version(),
    description="Probabilistic clustering by maximal matrix norm couplings (libmmnc binding)",
    packages=["mmnc"],
    ext_modules=[
        Extension(
            "mmnc._mmnc",
            sources=["mmnc/_mmnc.c"],
            include_dirs=[INCLUDE],
            library_dirs=[BUILD],
            libraries=["mmnc"],
            runtime_library_dirs=["$ORIGIN"],
            extra_compile_args=["-std=gnu11", "-Wall", "-Wextra", "-Wno-unused-parameter",
                                "-Wno-missing-field-initializers", "-Wno-cast-function-type"],
            extra_link_args=["-pthread"],
        )
    ],
    cmdclass={"build_ext": BuildExt},
    python_requires=">=3.9",
    install_requires=["numpy", "scipy"],
)
