"""The Python package acmesim (python/acmesim), its C++ core built by CMake: pyproject.toml says
what the package is, this file how _acmesim is built.

The core comes from, in this order:
  ACMESIM_BUILD_DIR=DIR   a configured CMake build folder: its target _acmesim is built there;
  build/                  this checkout's build (scripts/build.sh), when configured for the same
                          Python (the same extension suffix): only _acmesim is brought up to date,
                          usually nothing to do, since pip (21.3+) builds in the source tree;
  otherwise               a build folder of its own (build/setuptools/...), configured without
                          tests, benchmarks and MPI, building the target _acmesim only.
CMAKE_ARGS (split at spaces) goes to that last configure, e.g. -DCMAKE_CXX_COMPILER_LAUNCHER=ccache.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def version():
    """The version of CMakeLists.txt's project(acmesim VERSION x.y.z), as acmesim --version prints it."""
    return re.search(r"project\(acmesim VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text()).group(1)


def cached_suffix(build_dir):
    """The Python extension suffix a configured CMake build folder makes modules with; None if unconfigured."""
    cache = Path(build_dir) / "CMakeCache.txt"
    if not cache.exists():
        return None
    found = re.search(r"^PYTHON_MODULE_EXTENSION:INTERNAL=(.*)$", cache.read_text(), re.M)
    return found.group(1) if found else ""


class CMakeBuild(build_ext):
    """Builds the extension acmesim._acmesim with CMake (the target _acmesim) and copies it in."""

    def build_extension(self, ext):
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        build_dir = self.cmake_build_dir(suffix)
        jobs = str(os.cpu_count() or 1)
        subprocess.check_call(["cmake", "--build", str(build_dir), "--target", "_acmesim", "-j", jobs])
        built = Path(build_dir) / "python" / "acmesim" / f"_acmesim{suffix}"
        if not built.exists():
            sys.exit(f"setup.py: {built} was not built (the build folder's Python differs from {sys.executable}?)")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)

    def cmake_build_dir(self, suffix):
        given = os.environ.get("ACMESIM_BUILD_DIR")
        if given:
            if cached_suffix(given) is None:
                sys.exit(f"setup.py: ACMESIM_BUILD_DIR={given} is not a configured CMake build folder")
            return Path(given)
        if cached_suffix(ROOT / "build") == suffix:
            print(f"setup.py: reusing {ROOT / 'build'} (target _acmesim only)", flush=True)
            return ROOT / "build"
        own = Path(self.build_temp).resolve() / "cmake"
        if cached_suffix(own) is None:
            subprocess.check_call(["cmake", "-S", str(ROOT), "-B", str(own), "-DCMAKE_BUILD_TYPE=Release",
                                   f"-DPYTHON_EXECUTABLE={sys.executable}", "-DACMESIM_TESTS=OFF",
                                   "-DACMESIM_BENCHMARKS=OFF", "-DACMESIM_MPI=OFF",
                                   *shlex.split(os.environ.get("CMAKE_ARGS", ""))])
        return own


setup(
    version=version(),
    package_dir={"": "python"},
    packages=["acmesim"],
    ext_modules=[Extension("acmesim._acmesim", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": "build/setuptools"}},  # beside CMake's files, not among them
    zip_safe=False,
)
