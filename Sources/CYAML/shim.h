/* libyaml (Debian libyaml-dev), for ConsoleAssetEmbedder: openapi.json is made from openapi.yaml at
   build time with the same parser PyYAML's C loader uses. */
#include <yaml.h>
