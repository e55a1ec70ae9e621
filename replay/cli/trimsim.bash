# SPDX-License-Identifier: GPL-2.0
# bash completion for trimsim. Everything it offers comes from the binary itself, so
# it stays true as commands and options change: commands from `trimsim --help`,
# options from `trimsim CMD --help` (its usage line and option lines), presets and
# stages from `trimsim policies`, profiles from `trimsim models`, option values
# from the help text ("--to binary|jsonl", "[auto|issue|bio]", a "kinds" list);
# anything else completes file names.
# Installed as $(PREFIX)/share/bash-completion/completions/trimsim.

# The commands `trimsim --help` lists.
_trimsim_commands()
{
	"$1" --help 2>/dev/null | awk '/^commands:$/ { on = 1; next } on && /^  [a-z]/ { print $1; next } on { exit }'
}

# Options of command $2: the usage line(s) and the option lines of its --help.
_trimsim_options()
{
	"$1" "$2" --help 2>/dev/null | awk '
		/^usage: / { usage = 1 }
		usage && !/^usage: / && !/^ / { usage = 0 }
		usage { n = split($0, w, /[][ ]+/); for (i = 1; i <= n; i++) if (w[i] ~ /^--?[A-Za-z]/) print w[i]; next }
		/^ +-/ {
			line = $0; sub(/^ +/, "", line); sub(/  .*/, "", line)
			n = split(line, w, /[ ,=]+/)
			for (i = 1; i <= n; i++) if (w[i] ~ /^--?[A-Za-z]/) print w[i]
		}
		END { print "--help"; print "--version" }' | sed 's/[^A-Za-z0-9_-]*$//' | sort -u
}

# Values of option $3 of command $2 the help text names.
_trimsim_choices()
{
	"$1" "$2" --help 2>/dev/null | awk -v opt="$3" '
		/^[^ ].*:$/ { kinds = ($0 ~ /^kinds/) }
		kinds && /^  [a-z][a-z0-9-]*$/ && (opt == "--from" || opt == "--to") { print $1 }
		{
			n = split($0, w, /[][ ]+/)
			for (i = 1; i < n; i++)
				if (w[i] == opt && w[i + 1] ~ /\|/) { gsub(/\|/, "\n", w[i + 1]); print w[i + 1] }
		}
		$1 == opt && match($0, /\[[a-z0-9-]+([|,] ?[a-z0-9-]+)+\]$/) {
			s = substr($0, RSTART + 1, RLENGTH - 2); gsub(/[|,] ?/, "\n", s); print s
		}' | sort -u
}

_trimsim_presets()
{
	"$1" policies 2>/dev/null | awk '/^  [^ ]+: / { sub(/:$/, "", $1); print $1 }'
}

_trimsim_profiles()
{
	"$1" models 2>/dev/null | awk '/^[^ ]+ \(/ { print $1 }'
}

# COMPREPLY from the words in $2 that extend $1's last item (after ',' or '|').
_trimsim_list()
{
	local cur=$1 head= item=$1
	case $cur in
	*[,\|]*) head=${cur%[,|]*}; head=$head${cur:${#head}:1}; item=${cur#"$head"} ;;
	esac
	local w
	COMPREPLY=()
	for w in $2; do
		[[ $w == "$item"* ]] && COMPREPLY+=("$head$w")
	done
}

_trimsim()
{
	local bin=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]} prev= cmd= i
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	COMPREPLY=()
	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '--help --version -h -V' -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$(_trimsim_commands "$bin")" -- "$cur"))
		fi
		return 0
	fi
	case $prev in
	-p | --policy | --policies)
		_trimsim_list "$cur" "$(_trimsim_presets "$bin")"
		return 0 ;;
	-M | --model | --models)
		_trimsim_list "$cur" "$(_trimsim_profiles "$bin")"
		[[ $cur == */* || $cur == .* ]] && COMPREPLY+=($(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur"))
		return 0 ;;
	-m | --mount | --plan | --merge | --traces)
		COMPREPLY=($(compgen -d -- "$cur"))
		return 0 ;;
	-d | --device)
		COMPREPLY=($(compgen -f -- "${cur:-/dev/}"))
		return 0 ;;
	-o | --output | --svg | --file)
		COMPREPLY=($(compgen -f -- "$cur"))
		return 0 ;;
	-*)
		local v
		v=$(_trimsim_choices "$bin" "$cmd" "$prev")
		if [[ -n $v ]]; then
			COMPREPLY=($(compgen -W "$v" -- "$cur"))
			return 0
		fi ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_trimsim_options "$bin" "$cmd")" -- "$cur"))
	elif [[ $cmd == cell ]]; then	# the plan directory
		COMPREPLY=($(compgen -d -- "$cur"))
	elif [[ $cmd == models ]]; then
		COMPREPLY=($(compgen -W "$(_trimsim_profiles "$bin")" -- "$cur") $(compgen -f -X '!*.json' -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
	return 0
}
complete -o filenames -o bashdefault -F _trimsim trimsim
