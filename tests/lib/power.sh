# shellcheck shell=bash
# A power-supply folder as the kernel shows /sys/class/power_supply, for the tests of the
# battery guard (fdewiz reads it from FDEWIZ_TEST_POWER_SUPPLY; sourced after start.sh).

# power_fake DIR: in DIR (kept in $power) a mains supply (AC), the laptop's battery (BAT0),
# and a mouse's nearly empty one, whose battery says nothing about the computer's.
power_fake()
{
	power=$1
	mkdir -p "$power/AC" "$power/BAT0" "$power/hidpp_battery_0"
	echo Mains >"$power/AC/type"
	echo Battery >"$power/BAT0/type"
	echo 1 >"$power/BAT0/present"
	echo System >"$power/BAT0/scope"
	echo Battery >"$power/hidpp_battery_0/type"
	echo Device >"$power/hidpp_battery_0/scope"
	echo 3 >"$power/hidpp_battery_0/capacity"
	echo Discharging >"$power/hidpp_battery_0/status"
}

# set_power AC_ONLINE CAPACITY STATUS: as the kernel would show them, each value written
# whole, by rename, so that the worker never reads half of one.
set_power()
{
	local f

	for f in "AC/online:$1" "BAT0/capacity:$2" "BAT0/status:$3"; do
		echo "${f#*:}" >"$power/${f%%:*}.new"
		mv "$power/${f%%:*}.new" "$power/${f%%:*}"
	done
}
