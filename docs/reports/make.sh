#!/bin/sh
# Certify every bundled extraction strategy at the ci profile and keep the reports here,
# as examples of what a certified strategy publishes. Run from anywhere:
#   docs/reports/make.sh            (uses .venv/bin/python when present, else python)
# Exit status: 0 when every strategy is certified, else the first non-zero status.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
python=${PYTHON:-python}
[ -x "$root/.venv/bin/python" ] && python=${PYTHON:-$root/.venv/bin/python}
seed=${SEED:-0}   # a fixed seed keeps the committed reports reproducible

status=0
while read -r name target; do
    [ -n "$name" ] || continue
    echo "== $name: $target" >&2
    "$python" -m mcs_conformance.cli certify "$target" --profile ci --seed "$seed" \
        --out "$here/$name" || { code=$?; [ "$status" -eq 0 ] && status=$code; }
done <<TARGETS
openai-chat mcs_reference:OpenAIChatStrategy
openai-responses mcs_reference:OpenAIResponsesStrategy
anthropic-messages mcs_reference:AnthropicMessagesStrategy
ollama-chat mcs_reference:OllamaChatStrategy
text-json mcs_reference.text:json_text_strategy
hermes mcs_reference.text:hermes_text_strategy
TARGETS
exit "$status"
