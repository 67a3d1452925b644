#!/usr/bin/env python3
"""Every code name the docs cite exists: in docs/*.md, README.md and the doc comments of
Sources/, a name in backticks that reads as code (a type, `Type.member`, a call `name(...)`,
a DocC link ``Type/member(_:)``, a `.swift` file) must name something in the code.

What counts as existing:
- a `.swift` path: a file under Sources/, Tests/, Plugins/ or bench/ whose path ends with it;
- a name: an identifier of the project's Swift code (comments and string literals left out,
  so a type named only in prose or a file named after a type that is gone does not count), a
  string literal of that code that is one identifier (a JSON member such as "stateJSON"), of
  the toolchain's Swift interfaces (Swift, _Concurrency, Synchronization, Testing), or of the C
  headers of the libraries Package.swift links (libmicrohttpd, SQLite, libpq, Jansson, OpenSSL);
- otherwise, a name of Apple's frameworks that the docs compare with (UIKit has no Linux build,
  and Foundation ships no Swift interface to read): EXTERNAL below, each with its framework.

Exit status 1 with one line per unknown name (file:line: `name`), 0 when every name resolves.
"""
from __future__ import annotations

import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Names of Apple's frameworks (and of the web platform) cited as what NavPrefs mirrors or
# talks to; none can be read on this machine.
EXTERNAL = {
    # Foundation
    "UserDefaults", "NotificationCenter", "Notification", "OperationQueue", "URLSession",
    "URLSessionConfiguration", "JSONSerialization", "JSONDecoder", "JSONEncoder", "NSString",
    "NSNumber", "NSNull", "ProcessInfo", "FileManager", "Data", "Date", "URL", "Thread",
    "NSCondition", "NSLock", "RunLoop", "DispatchQueue", "DispatchSemaphore", "Bundle",
    "register", "integer", "bool", "double", "float", "string", "object", "removeObject",
    "set", "synchronize", "dictionaryRepresentation", "registeredDefaults", "addObserver",
    "post", "didChangeNotification", "integerValue", "boolValue", "doubleValue",
    "floatValue", "waitUntilAllOperationsAreFinished", "stringArray", "array", "dictionary",
    "setValuesForKeys", "scanInt", "charactersToBeSkipped", "minX",
    # UIKit (the seeds' navigation controller and bar)
    "UINavigationController", "UINavigationItem", "UINavigationBar", "UIBarButtonItem",
    "UIViewController", "UIGestureRecognizer", "UIPanGestureRecognizer", "UIScreenEdgePanGestureRecognizer",
    "UINavigationBarAppearance", "UISlider", "UIFont", "UILabel", "UIApplication", "UIKit",
    "pushViewController", "popViewController", "popToRootViewController", "popToViewController",
    "setViewControllers", "viewControllers", "topViewController", "visibleViewController",
    "interactivePopGestureRecognizer", "navigationItem", "backBarButtonItem", "backButtonTitle",
    "leftBarButtonItem", "leftBarButtonItems", "rightBarButtonItem", "rightBarButtonItems",
    "leftItemsSupplementBackButton", "hidesBackButton", "backButtonDisplayMode", "titleView",
    "largeTitleDisplayMode", "prefersLargeTitles", "scrollEdgeAppearance", "standardAppearance",
    "compactAppearance", "compactScrollEdgeAppearance", "isTranslucent", "barTintColor",
    "gestureRecognizerShouldBegin", "viewWillAppear", "viewDidLoad", "navigationController",
    "willShow", "didShow", "present", "dismiss", "presentedViewController",
    # XZNavigationController (seed 002's library)
    "XZNavigationController", "XZNavigationControllerCustomizable",
    # SwiftUI / Observation on Apple platforms
    "ObservableObject", "AppStorage", "Observable",
    "UIImage", "systemFont", "pageCurl", "systemBrown", "backItem", "viewDidAppear",
    "effectiveUserInterfaceLayoutDirection", "edgeInsetsForGestureNavigation", "isNavigationBarHidden", "configureWithDefaultBackground",
    "configureWithTransparentBackground", "configureWithOpaqueBackground",
    # swift-corelibs-foundation's own source, which the typed reads follow line by line
    "_NSStringBuffer", "skip", "checkForNegative", "scanCharacters", "decimalValue", "EndCharacter",
    "Locale", "current", "decimalSeparator", "_swiftValueOfOptimalType", "_expandingTildeInPath",
    # The seeds' demo apps (shared/seeds), whose names the well-known keys keep
    "UserPreferences", "shared", "numIndex", "UserDefaultsManager", "fontSizekey", "sliderValuekey",
    "getSliderValue", "getFontSize", "doRefreshNotification",
    # systemd (deploy/systemd/navprefs.service and docs/operations.md)
    "DynamicUser", "ProtectSystem", "PrivateTmp", "NoNewPrivileges",
    # The browser
    "EventSource", "fetch", "localStorage", "sessionStorage",
}

C_HEADERS = [
    "/usr/include/microhttpd.h", "/usr/include/sqlite3.h", "/usr/include/postgresql/libpq-fe.h",
    "/usr/include/jansson.h", "/usr/include/openssl/ssl.h", "/usr/include/openssl/evp.h",
]
SWIFT_INTERFACES = ["Swift", "_Concurrency", "Synchronization", "Testing"]

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
BACKTICKED = re.compile(r"(?<!`)``?([^`\n]+?)``?(?!`)")
LOWER_CAMEL = re.compile(r"^[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*$")  # a hump at least: readHere, not reset
UPPER_CAMEL = re.compile(r"^[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*$")  # two humps at least: StoreReply, not Host
CALL = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*(?:[./][A-Za-z_][A-Za-z0-9_]*)*)\((?:[A-Za-z_]*:)*\)$|"
                  r"^([A-Za-z_][A-Za-z0-9_]*(?:[./][A-Za-z_][A-Za-z0-9_]*)*)\(\)$")
DOTTED = re.compile(r"^[A-Z][A-Za-z0-9]*(?:[./][A-Za-z_][A-Za-z0-9_]*)+$")
SWIFT_FILE = re.compile(r"^[A-Za-z0-9_+./-]+\.swift$")
TREE_PATH = re.compile(r"^(Sources|Tests|Plugins|bench|scripts|deploy|docs)/[A-Za-z0-9_+./-]*$")


def strip_swift(text: str) -> str:
    """Swift source without comments and string literals (multi-line ones too)."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif text.startswith('"""', i):
            j = text.find('"""', i + 3)
            i = n if j < 0 else j + 3
            out.append('""')
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"' and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            out.append('""')
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def code_identifiers() -> set[str]:
    names: set[str] = set()
    for pattern in ("Sources/**/*.swift", "Tests/**/*.swift", "Plugins/**/*.swift", "bench/**/*.swift", "Package.swift"):
        for path in glob.glob(os.path.join(ROOT, pattern), recursive=True):
            with open(path, encoding="utf-8") as f:
                text = f.read()
            names.update(IDENT.findall(strip_swift(text)))
            names.update(re.findall(r'"([A-Za-z_][A-Za-z0-9_]*)"', text))
    toolchain = os.path.dirname(os.path.dirname(os.path.realpath(shutil_which("swift") or "/opt/swift/usr/bin/swift")))
    for module in SWIFT_INTERFACES:
        for path in glob.glob(os.path.join(toolchain, "lib/swift/linux", f"{module}.swiftmodule", "*.swiftinterface")):
            with open(path, encoding="utf-8", errors="replace") as f:
                names.update(IDENT.findall(f.read()))
    for header in C_HEADERS:
        if os.path.exists(header):
            with open(header, encoding="utf-8", errors="replace") as f:
                names.update(IDENT.findall(f.read()))
    # Targets and products (Package.swift's string literals) and the contract's schema names.
    with open(os.path.join(ROOT, "Package.swift"), encoding="utf-8") as f:
        names.update(re.findall(r'name: "([^"]+)"', f.read()))
    with open(os.path.join(ROOT, "openapi.yaml"), encoding="utf-8") as f:
        # Schema names, and every property and parameter name (JSON fields such as `lastEventId`).
        names.update(re.findall(r"^ +([A-Za-z_][A-Za-z0-9_]*):", f.read(), re.MULTILINE))
    return names | EXTERNAL


def shutil_which(name: str) -> str | None:
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        candidate = os.path.join(directory, name)
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def swift_files() -> list[str]:
    paths = []
    for pattern in ("Sources/**/*.swift", "Tests/**/*.swift", "Plugins/**/*.swift", "bench/**/*.swift"):
        paths += [os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, pattern), recursive=True)]
    return paths


def cited(text: str, in_code: bool) -> list[tuple[str, list[str] | None]]:
    """Code names in one line: (citation, identifiers that must exist) or (path, None) for a file.
    A lone lowerCamel name is checked in doc comments only: in the docs it is most often a member
    of a JSON document (`lastEventId`, the transfer format's `stateJSON`), not a code name."""
    found = []
    for match in BACKTICKED.finditer(text):
        token = match.group(1).strip()
        if SWIFT_FILE.match(token) or TREE_PATH.match(token):
            parts = token.split("/")
            # `Sources/App/main.swift` in the client guide is an app's own file, not ours.
            if parts[0] in ("Sources", "Tests") and len(parts) > 2 and not os.path.isdir(os.path.join(ROOT, parts[0], parts[1])):
                continue
            found.append((token, None))
            continue
        call = CALL.match(token)
        if call:
            base = call.group(1) or call.group(2)
            found.append((token, re.split(r"[./]", base)))
        elif DOTTED.match(token):
            found.append((token, re.split(r"[./]", token)))
        elif UPPER_CAMEL.match(token) or (in_code and LOWER_CAMEL.match(token)):
            found.append((token, [token]))
    return found


def doc_lines():
    for path in sorted(glob.glob(os.path.join(ROOT, "docs/*.md")) + [os.path.join(ROOT, "README.md")]):
        with open(path, encoding="utf-8") as f:
            in_fence = False
            for number, line in enumerate(f, 1):
                if line.lstrip().startswith("```"):
                    in_fence = not in_fence
                    continue
                if not in_fence:
                    yield os.path.relpath(path, ROOT), number, line
    for path in sorted(glob.glob(os.path.join(ROOT, "Sources/**/*.swift"), recursive=True)):
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                stripped = line.lstrip()
                if stripped.startswith("///") or stripped.startswith("//"):
                    yield os.path.relpath(path, ROOT), number, stripped


def main() -> int:
    names = code_identifiers()
    files = swift_files()
    unknown = []
    for path, number, line in doc_lines():
        for citation, parts in cited(line, in_code=path.endswith(".swift")):
            if parts is None:
                if not (os.path.exists(os.path.join(ROOT, citation))
                        or any(f == citation or f.endswith("/" + citation) for f in files)):
                    unknown.append(f"{path}:{number}: `{citation}` (no such file)")
            else:
                missing = [p for p in parts if p and p not in names]
                if missing:
                    unknown.append(f"{path}:{number}: `{citation}` ({', '.join(missing)} not in the code)")
    for line in unknown:
        print(line)
    print(f"check-code-names: {len(unknown)} unknown code name(s)", file=sys.stderr)
    return 1 if unknown else 0


if __name__ == "__main__":
    sys.exit(main())
