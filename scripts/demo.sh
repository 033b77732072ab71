#!/usr/bin/env bash
# The README's first quick-start command: index the bundled demo project with the
# real model, then check a new brief that duplicates past work.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/provision-model.sh
npm run --silent build
demo=fixtures/demo-repo
echo
echo "\$ agentos index --include-history   (in $demo)"
# On purpose: #41's frontmatter has an unclosed quote, to show one bad file named and read anyway.
echo "(#41's frontmatter is broken on purpose: indexing warns, then reads it anyway)"
node bin/agentos.js -C "$demo" index --include-history
for brief in optimize-docker-build-times propose-multi-stage-builds fix-logging-bug unrelated-onboarding-tour; do
  echo
  echo "\$ agentos issue start briefs/$brief.md --non-interactive"
  node bin/agentos.js -C "$demo" issue start "$demo/briefs/$brief.md" --non-interactive
done
echo
echo "Try it at the keyboard: node bin/agentos.js -C $demo issue start $demo/briefs/optimize-docker-build-times.md"
