# What `fdewiz --help` and `fdewiz CMD --help` say (sourced): the source of truth that the
# man page and the bash completion are checked against. Needs $FDEWIZ.

# help_commands: the command names listed under "Commands:" in `fdewiz --help`.
help_commands()
{
	LC_ALL=C LANGUAGE='' "$FDEWIZ" --help |
		awk '/^Commands:/ { on = 1; next }
		     on && /^$/ { exit }
		     on && /^  [a-z]/ && !seen[$1]++ { print $1 }'
}

# help_global_options: the long options under "Options:" in `fdewiz --help`.
help_global_options()
{
	LC_ALL=C LANGUAGE='' "$FDEWIZ" --help | awk '/^Options:/ { on = 1; next } on' |
		{ grep -oE -- '--[a-z][a-z0-9-]*' || true; } | sort -u
}

# help_options CMD: every long option `fdewiz CMD --help` prints (fails when it fails).
help_options()
{
	local text

	text=$(LC_ALL=C LANGUAGE='' "$FDEWIZ" "$1" --help) || return 1
	printf '%s\n' "$text" | { grep -oE -- '--[a-z][a-z0-9-]*' || true; } | sort -u
}
