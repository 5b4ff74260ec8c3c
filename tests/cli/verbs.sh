#!/bin/bash
# End-to-end test of the CLI's non-interactive verbs on the scratch workbook: what a student
# and a script see, exit statuses included.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
fresh_start

expect_status 0 "--help" "$wb" --help
for verb in watch list next go check hint reset solution progress doctor devices; do
    expect_status 0 "$verb --help" "$wb" "$verb" --help
done

expect_status 0 "list on a fresh tree" "$wb" list
expect_contains "$out" "> 01  pending" "01 is current and pending"
expect_contains "$out" "0/3 exercises done" "progress bar"

expect_status 1 "check 01 on the starter" "$wb" check 01
expect_contains "$out" "FAIL 01" "a failing starter"
expect_contains "$out" "returned 0 platform(s)" "the graded test's own message"
expect_contains "$out" "running the graded test of 01_device_info..." "each step said as it comes"
expect_not_contains "$out" "[doctest]" "no doctest boilerplate"

expect_status 2 "solution before a pass" "$wb" solution 01
expect_contains "$out" "has not passed yet" "the solution stays hidden"

expect_status 0 "first hint" "$wb" hint 01
expect_contains "$out" "Hint 1/" "the ladder starts at 1"
expect_status 0 "second hint" "$wb" hint 01
expect_contains "$out" "Hint 2/" "and climbs"

solve 01_device_info
expect_status 0 "check 01 after the solution is copied in" "$wb" check 01
expect_contains "$out" "PASS 01" "a pass"
expect_status 0 "solution after a pass" "$wb" solution 01
expect_contains "$out" "==> solutions/01_device_info/device_info.cpp <==" "the solution is shown"
expect_status 0 "progress" "$wb" progress
expect_contains "$out" "1/3 exercises done" "one done"
expect_contains "$out" "2 of" "hints used are counted"

expect_status 0 "next" "$wb" next
expect_contains "$out" "Now on 02" "moved to 02"
expect_status 2 "next before 02 passes" "$wb" next
expect_contains "$out" "has not passed yet" "next waits for a pass"

# A kernel that does not compile: the file and line come first.
sed -i 's/^__kernel/__kernel void broken(void) { undeclared_name = 1; }\n__kernel/' "$scratch/exercises/02_vadd/vadd.cl"
expect_status 1 "check with a kernel build error" "$wb" check
expect_contains "$out" "exercises/02_vadd/vadd.cl:" "the kernel file"
expect_contains "$out" "undeclared_name" "the compiler's message"
expect_contains "$out" "your kernel does not compile" "the stage"

# Host code that does not compile.
echo "this is not C++;" >> "$scratch/exercises/02_vadd/vadd_host.cpp"
expect_status 1 "check with a host compile error" "$wb" check 02
expect_contains "$out" "your code does not compile" "the stage"
expect_contains "$out" "vadd_host.cpp:" "the host file and line"

expect_status 0 "reset 02" "$wb" reset 02
expect_contains "$out" "Your previous files are kept in .workbook/backups/02_vadd-" "the backup is named"
cmp "$scratch/exercises/02_vadd/vadd.cl" "$source_dir/exercises/02_vadd/vadd.cl" || fail "reset did not restore vadd.cl"
cmp "$scratch/exercises/02_vadd/vadd_host.cpp" "$source_dir/exercises/02_vadd/vadd_host.cpp" ||
    fail "reset did not restore vadd_host.cpp"
grep -q "undeclared_name" "$scratch"/.workbook/backups/02_vadd-*/vadd.cl || fail "the backup lacks the student's kernel"
echo "ok: reset restored the starter and kept the student's files"

expect_status 2 "an unknown exercise" "$wb" go 99
expect_contains "$out" "no exercise \"99\"" "named in the error"

solve 03_vadd_chain
WORKBOOK_RACE_CHECK=off expect_status 0 "check 03 with the race check switched off" "$wb" check 03
expect_contains "$out" "race check: SKIPPED, switched off by WORKBOOK_RACE_CHECK=off" "saying so"
solve 02_vadd
expect_status 0 "check 02 solved, with the race check" "$wb" check 02
expect_contains "$out" "values right (" "the values' verdict said before the race check runs"
expect_contains "$out" "race check: clean" "then the race check's"
# A failure ends the check: a kernel with wrong values never reaches the slower race check.
sed -i 's/a\[i\] + b\[i\]/a[i] - b[i]/' "$scratch/exercises/02_vadd/vadd.cl"
grep -q "a\[i\] - b\[i\]" "$scratch/exercises/02_vadd/vadd.cl" || fail "the planted bug did not take"
expect_status 1 "check 02 with wrong values" "$wb" check 02
expect_not_contains "$out" "race check running" "no race check after wrong values"
# The values cases run side by side, each in a process of its own: a failure in the second (the
# host code's, the kernel right) still fails the check, with that case's message.
cp "$source_dir/solutions/02_vadd/vadd.cl" "$scratch/exercises/02_vadd/"
sed -i 's/static_cast<cl_uint>(count));/static_cast<cl_uint>(count - 1));/' "$scratch/exercises/02_vadd/vadd_host.cpp"
grep -q "count - 1));" "$scratch/exercises/02_vadd/vadd_host.cpp" || fail "the planted host bug did not take"
expect_status 1 "check 02 with a host bug" "$wb" check 02
expect_contains "$out" "vadd_on_device with count = " "the host case's failure named"
expect_not_contains "$out" "race check running" "no race check after a host case failed"
cp "$source_dir/exercises/02_vadd/"{vadd.cl,vadd_host.cpp} "$scratch/exercises/02_vadd/"

expect_status 1 "check --all" "$wb" check --all
expect_contains "$out" "2 of 3 passed" "the tally"

# No terminal on stdin: one check, no prompt.
expect_status 1 "workbook without a terminal" "$wb" </dev/null
expect_contains "$out" "stdin is not a terminal" "says so"
expect_contains "$out" "FAIL 02" "and checks the current exercise"

expect_status 0 "devices" "$wb" devices
expect_contains "$out" "[0]" "a numbered device"
expect_status 0 "doctor" "$wb" doctor
expect_contains "$out" "usable device" "a verdict"
OCL_ICD_VENDORS=/nonexistent expect_status 2 "doctor without a driver" "$wb" doctor
expect_contains "$out" "Fix:" "the fix"

echo "PASS: all verbs"
