#!/usr/bin/env bash
# The Action's last step (action.yml): a project without .agentos/config.yaml is set up as
# `agentos init --yes` detects it (git history; GitHub issues when gh can read them), the
# index is brought up to date (incremental after the first run: the cache restored it), and
# the event is answered. Each part's time goes to the job log, so a slow run says where.
set -euo pipefail

AGENTOS=(node "${GITHUB_ACTION_PATH:?run from action.yml}/bin/agentos.js")

# pull_request_target runs with the base repository's write token and its cache: refused before
# anything runs (init and the index refresh would otherwise run first, with that token). docs/ci.md.
if [ "${GITHUB_EVENT_NAME:-}" = pull_request_target ]; then
  echo "::error title=agentos::pull_request_target is not supported: use pull_request (fork runs get a read-only token and their own cache; docs/ci.md)"
  exit 2
fi
stamp() { date +%s.%N; }
took() { awk -v a="$1" -v b="$(stamp)" 'BEGIN { printf "%.1f s", b - a }'; }

# The check fails open (docs/ci.md): a step before it that fails says so and the check still runs; it
# then answers from the index the cache restored, or, with none, fails open itself with a warning.
t=$(stamp)
if [ ! -f .agentos/config.yaml ]; then
  "${AGENTOS[@]}" init --yes || echo "::warning title=agentos::agentos init failed (exit $?): checking with the defaults"
fi
echo "agentos: init $(took "$t")"

# An answer (closed, a label removed) reads agentos' comment, not the index: no refresh, no tracker fetch.
case "${GITHUB_EVENT_NAME:-}:$(node -e 'try { process.stdout.write(String(require(process.env.GITHUB_EVENT_PATH).action ?? "")) } catch {}')" in
  issues:closed | issues:unlabeled) echo "agentos: index not needed for this event" ;;
  *)
    t=$(stamp)
    "${AGENTOS[@]}" index --include-history || echo "::warning title=agentos::index refresh failed (exit $?): checking against the index the cache restored"
    echo "agentos: index $(took "$t")"
    ;;
esac

args=(ci github --label "${AGENTOS_LABEL:-possible-duplicate}" --bot-login "${AGENTOS_BOT_LOGIN:-github-actions[bot]}")
while IFS= read -r glob; do
  [ -n "$glob" ] && args+=(--briefs "$glob")
done <<< "${AGENTOS_BRIEFS:-}"

t=$(stamp)
"${AGENTOS[@]}" "${args[@]}"
echo "agentos: check $(took "$t")"
