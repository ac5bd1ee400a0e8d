#!/usr/bin/env python3
"""Prints, NUL-separated, the command that links PRODUCT of a SwiftPM debug build again with the
Swift runtime linked statically: SwiftPM's own link command for it (from the build's llbuild
manifest, BUILD.yaml), its output moved to OUT, without the rpath and the driver's -v, with
-static-stdlib (the static resource directory where the command names one) and PROBE, an object
compiled with -static-stdlib that imports Foundation: its autolink entries name the static
Foundation's own libraries, which objects compiled for the dynamic runtime do not.

    scripts/static-relink.py BUILD.yaml PRODUCT OUT PROBE

Used by scripts/build-deb.sh --debug (a link instead of a second compile)."""
import json
import sys


def link_arguments(manifest: str, product: str) -> list[str]:
    """SwiftPM's link command for PRODUCT: the args line after its "Linking …/PRODUCT" line."""
    found = False
    with open(manifest, encoding="utf-8") as lines:
        for line in lines:
            stripped = line.strip()
            if stripped.startswith('description: "Linking ') and stripped.endswith(f'/{product}"'):
                found = True
            elif found and stripped.startswith("args: "):
                return json.loads(stripped[len("args: "):])
    raise SystemExit(f"static-relink.py: no link command for {product} in {manifest}")


def static_arguments(arguments: list[str], out: str, probe: str) -> list[str]:
    result: list[str] = []
    i = 0
    while i < len(arguments):
        argument = arguments[i]
        following = arguments[i + 1] if i + 1 < len(arguments) else None
        if argument == "-o" and following is not None:
            result += ["-o", out]
            i += 2
        elif argument in ("-Xlinker", "-Xclang-linker") and following is not None:
            # A pair for the linker or its driver, kept as it is but the rpath.
            if not following.startswith("-rpath"):
                result += [argument, following]
            i += 2
        elif argument == "-v":
            i += 1
        elif argument == "-resource-dir" and following is not None:
            # The dynamic runtime's resources (…/lib/swift) beside the static one's (…/lib/swift_static).
            if not following.rstrip("/").endswith("/swift"):
                raise SystemExit(f"static-relink.py: a resource directory not named swift: {following}")
            result += ["-resource-dir", following.rstrip("/") + "_static"]
            i += 2
        else:
            result.append(argument)
            i += 1
    return result + ["-static-stdlib", probe]


def main() -> None:
    if len(sys.argv) != 5:
        raise SystemExit(__doc__)
    manifest, product, out, probe = sys.argv[1:]
    sys.stdout.write("\0".join(static_arguments(link_arguments(manifest, product), out, probe)) + "\0")


if __name__ == "__main__":
    main()
