# Shared by scripts/serve and scripts/install: `swift build` in an environment that does not
# change between runs.
#
# SwiftPM builds a plugin's tool (ConsoleAssetEmbedder, for the EmbedConsoleAssets plugin) with
# the caller's whole environment in the commands' signatures: any difference (another working
# directory, OLDPWD after a cd, a terminal's variables) relinks the tool, and a relinked tool
# re-runs the embedding (the embedder then leaves its unchanged output alone, so nothing
# compiles; before it did, NavPrefsConsole compiled again: 3.5 s to restart with nothing
# changed). With the same few variables every time, a build with nothing changed does nothing.

stable_swift_build() {  # stable_swift_build ARGUMENTS...: swift build ARGUMENTS..., output on stderr
  local keep=(PATH="$PATH" HOME="$HOME") name
  # Besides: what locates a toolchain (swiftly's proxies, SDKROOT) and temporary files.
  for name in TMPDIR LANG LC_ALL SDKROOT TOOLCHAINS $(compgen -e | grep -E '^(SWIFTLY|SWIFTPM|SWIFT)_' || true); do
    [ -n "${!name:-}" ] && keep+=("$name=${!name}")
  done
  env -i "${keep[@]}" swift build "$@" >&2
}
