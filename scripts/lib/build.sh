# Shared by scripts/serve and scripts/install: `swift build` in an environment that does not
# change between runs.
#
# SwiftPM builds a plugin's tool (ConsoleAssetEmbedder, for the EmbedConsoleAssets plugin) with
# the caller's whole environment in the commands' signatures: any difference (another working
# directory, OLDPWD after a cd, a terminal's variables) relinks the tool, and a relinked tool
# re-runs the embedding and recompiles NavPrefsConsole, about 3 s with nothing changed. With the
# same few variables every time, a build with nothing changed does nothing (well under a second).

stable_swift_build() {  # stable_swift_build ARGUMENTS...: swift build ARGUMENTS..., output on stderr
  local keep=(PATH="$PATH" HOME="$HOME") name
  for name in TMPDIR LANG LC_ALL; do
    [ -n "${!name:-}" ] && keep+=("$name=${!name}")
  done
  env -i "${keep[@]}" swift build "$@" >&2
}
