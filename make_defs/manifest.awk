# Reads course.toml for the plain-make path (make_defs/common.mk and all.mk call it).
#   awk -v folder=02_vadd -v key=edit -f make_defs/manifest.awk course.toml
# prints one key of one exercise, its values separated by spaces (kernels = ["a.cl", "b.cl"]
# gives "a.cl b.cl"), nothing for an empty array, and "__not_in_manifest__" when no [[exercise]]
# has that folder.
#   awk -v key=folders -f make_defs/manifest.awk course.toml
# prints the folders of all exercises ("01_device_info 02_vadd ..."), in course order.
# Like cmake/workbook.cmake's reader it understands only what course.toml uses for these keys:
# `id` and `name` as strings, `edit`, `kernels`, `speed_references` and `traffic_references` as flat arrays of strings, possibly spread over
# several lines. Plain POSIX awk (mawk, gawk, BSD awk), so it runs wherever make does.

function flush_block() {
    if (in_block && key == "folders" && id != "") folders = folders (folders == "" ? "" : " ") id "_" name
    if (in_block && id != "" && (id "_" name) == folder) {
        found = 1
        result = values[key]
    }
    id = ""; name = ""; delete_values()
}

function delete_values() {
    values["edit"] = ""; values["kernels"] = ""; values["speed_references"] = ""; values["traffic_references"] = ""
}

# The strings in `text`, space-separated.
function strings_of(text,    out, rest, start, stop) {
    out = ""; rest = text
    while ((start = index(rest, "\"")) > 0) {
        rest = substr(rest, start + 1)
        stop = index(rest, "\"")
        if (stop == 0) break
        out = out (out == "" ? "" : " ") substr(rest, 1, stop - 1)
        rest = substr(rest, stop + 1)
    }
    return out
}

BEGIN { in_block = 0; found = 0; folders = ""; collecting = ""; delete_values() }

# Comments (whole lines only: no key this reader uses has a trailing comment).
/^[ \t]*#/ { next }

/^\[\[exercise\]\]/ { flush_block(); in_block = 1; collecting = ""; next }
/^\[/ { flush_block(); in_block = 0; collecting = ""; next }

{
    if (!in_block) next
    line = $0
    if (collecting != "") {
        # Inside a multi-line array: gather strings up to the closing bracket.
        stop = index(line, "]")
        if (stop > 0) line = substr(line, 1, stop - 1)
        more = strings_of(line)
        if (more != "") values[collecting] = values[collecting] (values[collecting] == "" ? "" : " ") more
        if (stop > 0) collecting = ""
        next
    }
    if (match(line, /^[ \t]*id[ \t]*=/)) { id = strings_of(line); next }
    if (match(line, /^[ \t]*name[ \t]*=/)) { name = strings_of(line); next }
    if (match(line, /^[ \t]*(edit|kernels|speed_references|traffic_references)[ \t]*=/)) {
        k = line; sub(/^[ \t]*/, "", k); sub(/[ \t]*=.*/, "", k)
        rest = line; sub(/^[^=]*=/, "", rest)
        open = index(rest, "[")
        if (open == 0) next
        rest = substr(rest, open + 1)
        stop = index(rest, "]")
        if (stop > 0) {
            values[k] = strings_of(substr(rest, 1, stop - 1))
        } else {
            values[k] = strings_of(rest)
            collecting = k
        }
    }
}

END {
    flush_block()
    if (key == "folders") print folders
    else if (found) print result
    else print "__not_in_manifest__"
}
