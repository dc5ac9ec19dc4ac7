"""What the kernel checks (check_resource_usage.py, check_wide_loads.py) share: C++ names demangled with
c++filt, where it is installed (mangled names are kept otherwise)."""
import shutil
import subprocess


def demangle(names):
    cxxfilt = shutil.which("c++filt")
    if not cxxfilt or not names:
        return {n: n for n in names}
    out = subprocess.run([cxxfilt], input="\n".join(names), capture_output=True, text=True, check=True).stdout
    return dict(zip(names, out.splitlines()))
