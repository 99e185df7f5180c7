#!/usr/bin/env bash
# Paddock's demo agent: a small real program run as an agent, so a newcomer sees
# the whole loop without installing one. It echoes its prompt, really edits and
# commits in its worktree, asks "[y/n]" (and says so with `paddock signal
# waiting`), then finishes on y (a second commit, exit 0) or stops on n (exit 1).
#   demo-agent.sh [--scenario ask|work|fail] [PROMPT…]
scenario=ask
if [ "$1" = "--scenario" ]; then scenario="$2"; shift 2; fi
if [ "$1" = "--" ]; then shift; fi
prompt="$*"
[ -n "$prompt" ] || prompt="Write a short note about this repository"
cyan=$'\e[36m'; green=$'\e[32m'; yellow=$'\e[33m'; red=$'\e[31m'; dim=$'\e[2m'; bold=$'\e[1m'; reset=$'\e[0m'

commit() {
  # A fresh machine may have no git identity: the demo signs its own commits then.
  if git config user.email >/dev/null 2>&1; then git commit -q -m "$1"
  else git -c user.name="Paddock demo agent" -c user.email="demo-agent@paddock.invalid" commit -q -m "$1"; fi
}

printf '%s\n' "${bold}${cyan}╭──────────────────────────────────────────────╮${reset}"
printf '%s\n' "${bold}${cyan}│${reset} ${bold}demo-agent${reset} ${dim}· worktree $(basename "$PWD")${reset}"
printf '%s\n' "${bold}${cyan}╰──────────────────────────────────────────────╯${reset}"
printf '\n%s\n' "${dim}> ${reset}${prompt}"
sleep 1

case "$scenario" in
  fail)
    printf '%s\n' "${green}●${reset} Read the repository"
    sleep 1
    printf '%s\n' "${red}✗${reset} Could not finish: the demo's failing scenario ends with exit 1"
    exit 1
    ;;
  work)
    # Keeps working until stopped: a running agent.
    n=0
    while :; do
      n=$((n + 1))
      printf '%s\n' "${green}●${reset} Step ${n}: reading and thinking ${dim}($(date +%T))${reset}"
      sleep 3
    done
    ;;
esac

mkdir -p notes
note="notes/demo-agent.md"
{
  printf '# %s\n\n' "$prompt"
  printf 'Written by the Paddock demo agent in its own worktree on branch %s.\n' "$(git branch --show-current 2>/dev/null)"
} > "$note"
printf '%s\n' "${green}●${reset} Wrote ${bold}${note}${reset}"
git add "$note" && commit "demo agent: ${prompt}" && printf '%s\n' "${green}●${reset} Committed ${dim}$(git rev-parse --short HEAD)${reset}"
sleep 1
printf '\n%s' "${yellow}?${reset} Add a closing line and commit again? ${dim}[y/n]${reset} "
# The row turns "waiting for you" at once; the profile's waitingPattern is the fallback.
paddock signal waiting >/dev/null 2>&1 || true
IFS= read -r answer
paddock signal running >/dev/null 2>&1 || true
case "$answer" in
  y* | Y*)
    printf '\nDone: the closing line is in.\n' >> "$note"
    git add "$note" && commit "demo agent: finish ${prompt}"
    printf '%s\n' "${green}✓${reset} Finished with a second commit ${dim}$(git rev-parse --short HEAD)${reset}"
    exit 0
    ;;
  *)
    printf '%s\n' "${red}✗${reset} Stopped before the second commit (answered '${answer}')"
    exit 1
    ;;
esac
