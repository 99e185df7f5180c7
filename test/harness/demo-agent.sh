#!/usr/bin/env bash
# A stand-in for a coding agent in screenshots: draws a small full-colour UI,
# then waits for input like an interactive agent does. Not a real agent.
cyan=$'\e[36m'; green=$'\e[32m'; yellow=$'\e[33m'; dim=$'\e[2m'; bold=$'\e[1m'; reset=$'\e[0m'
printf '%s\n' "${bold}${cyan}╭──────────────────────────────────────────────────────────╮${reset}"
printf '%s\n' "${bold}${cyan}│${reset} ${bold}demo-agent${reset} ${dim}v1.0 · worktree $(basename "$PWD")${reset}"
printf '%s\n' "${bold}${cyan}╰──────────────────────────────────────────────────────────╯${reset}"
printf '\n%s\n' "${dim}> ${reset}Fix the flaky date test in src/util"
sleep 0.2
printf '%s\n' "${green}●${reset} Read ${bold}src/util/date.js${reset} ${dim}(42 lines)${reset}"
printf '%s\n' "${green}●${reset} Read ${bold}test/date.test.js${reset} ${dim}(88 lines)${reset}"
printf '%s\n' "${green}●${reset} The test compares local midnight with a UTC timestamp."
printf '%s\n' "${green}●${reset} Edit ${bold}src/util/date.js${reset}"
printf '%s\n' "    ${dim}12${reset} ${yellow}-  return new Date(y, m, d).getTime();${reset}"
printf '%s\n' "    ${dim}12${reset} ${green}+  return Date.UTC(y, m, d);${reset}"
printf '%s\n' "${green}●${reset} Run ${bold}npm test${reset} ${dim}→ 88 passed${reset}"
printf '\n%s\n' "${yellow}?${reset} Commit these changes? ${dim}[y/n]${reset}"
while IFS= read -r line; do printf '%s\n' "${dim}you said:${reset} $line"; done
