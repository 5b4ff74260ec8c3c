# Draws a horizontal bar chart (SVG on stdout) of the GFLOPS column of a matmul bench CSV, as
# build/bin/mmul_bench writes it:
#   device,case,n,gflops,median_s,min_s,max_s,repeats,check
# Fields may be quoted ("..." with "" for a quote). One bar per row of one matrix order N.
#
#   awk -v want_n=1024 -v scale=log -v source=FILE -f chart.awk FILE > chart.svg
#     want_n  the N to draw (default: the largest N in the file)
#     scale   log (default) or linear
#     source  the name printed under the chart (default: the file name)
# Plain POSIX awk (mawk or gawk). Exits 1 with a message on stderr when the CSV does not fit.

function die(msg) {
    print "chart: " msg > "/dev/stderr"
    failed = 1
    exit 1
}

# Splits one CSV line into f[1..n]; returns n.
function split_csv(line, f,    n, i, c, field, quoted) {
    n = 0; field = ""; quoted = 0
    for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (quoted) {
            if (c == "\"") {
                if (substr(line, i + 1, 1) == "\"") { field = field "\""; i++ }
                else quoted = 0
            } else field = field c
        } else if (c == "\"") quoted = 1
        else if (c == ",") { f[++n] = field; field = "" }
        else field = field c
    }
    f[++n] = field
    return n
}

function xml(s) {
    gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s); gsub(/"/, "\\&quot;", s)
    return s
}

function log10(x) { return log(x) / log(10) }

function fmt_value(v) {
    if (v >= 1000) return sprintf("%.0f", v)
    if (v >= 100) return sprintf("%.1f", v)
    if (v >= 10) return sprintf("%.1f", v)
    return sprintf("%.2f", v)
}

function fmt_tick(v) {
    if (v >= 1) return sprintf("%.0f", v)
    return sprintf("%g", v)
}

# Position of value v on the bar axis, 0..plot_w.
function pos(v) {
    if (scale == "log") return (log10(v) - lo) / (hi - lo) * plot_w
    return v / hi * plot_w
}

BEGIN {
    if (scale == "") scale = "log"
    if (scale != "log" && scale != "linear") die("scale must be log or linear, not " scale)
    rows = 0
}

{ sub(/\r$/, "") }

NR == 1 {
    nh = split_csv($0, h)
    for (i = 1; i <= nh; i++) col[h[i]] = i
    if (!("device" in col) || !("case" in col) || !("n" in col) || !("gflops" in col))
        die(FILENAME ": the header must name device, case, n and gflops columns (as mmul_bench writes them), not: " $0)
    next
}

/^[ \t]*$/ { next }

{
    nf = split_csv($0, f)
    rows++
    r_dev[rows] = f[col["device"]]
    r_case[rows] = f[col["case"]]
    r_n[rows] = f[col["n"]] + 0
    r_g[rows] = f[col["gflops"]] + 0
    r_check[rows] = ("check" in col) ? f[col["check"]] : "ok"
    if (f[col["n"]] !~ /^[0-9]+$/) die(FILENAME ":" NR ": n is not a number: " f[col["n"]])
    if (r_n[rows] > max_n) max_n = r_n[rows]
}

END {
    if (failed) exit 1
    if (rows == 0) die(FILENAME ": no data rows")
    if (want_n == "") want_n = max_n
    want_n += 0
    k = 0
    for (i = 1; i <= rows; i++) {
        if (r_n[i] != want_n) continue
        if (r_g[i] <= 0) continue
        k++
        b_case[k] = r_case[i]; b_g[k] = r_g[i]; b_check[k] = r_check[i]
        device = r_dev[i]
    }
    if (k == 0) die(FILENAME ": no row with n = " want_n " and a positive gflops value")

    vmin = b_g[1]; vmax = b_g[1]
    for (i = 2; i <= k; i++) {
        if (b_g[i] < vmin) vmin = b_g[i]
        if (b_g[i] > vmax) vmax = b_g[i]
    }
    if (scale == "log") {
        # The axis starts a decade low enough that the shortest bar stays visible.
        lo = int(log10(vmin / 2)); if (10 ^ lo > vmin / 2) lo--
        hi = int(log10(vmax)); if (10 ^ hi < vmax) hi++
        if (hi == lo) hi++
    } else {
        # A round upper end: 1, 1.5, 2, 3, 4, 5, 6, 8 or 10 times a power of ten p; ticks every p
        # (every 2p above 5p).
        p = 10 ^ int(log10(vmax)); if (p > vmax) p /= 10
        nice = "1 1.5 2 3 4 5 6 8 10"; nn = split(nice, mult, " ")
        for (i = 1; i <= nn; i++) { hi = mult[i] * p; if (hi >= vmax) break }
        step = (hi / p <= 5) ? p : 2 * p
        if (hi / step < 3) step = step / 2
    }

    label_w = 430; value_w = 100; plot_w = 610; bar_h = 36; gap = 10; top = 70
    width = label_w + plot_w + value_w + 20
    height = top + k * (bar_h + gap) + 56
    printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, sans-serif\">\n", width, height, width, height
    printf "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", width, height
    printf "<text x=\"10\" y=\"28\" font-size=\"24\" font-weight=\"bold\" fill=\"#1f3b5c\">Matmul, N = %d, %s</text>\n", want_n, xml(device)
    printf "<text x=\"10\" y=\"54\" font-size=\"18\" fill=\"#555\">GFLOPS = 2N\302\263 / t (%s scale; longer is faster)</text>\n", scale == "log" ? "logarithmic" : "linear"

    # Grid lines and tick labels.
    axis_y = top + k * (bar_h + gap)
    if (scale == "log") {
        for (e = lo; e <= hi; e++) {
            x = label_w + pos(10 ^ e)
            printf "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ccc\"/>\n", x, top - 4, x, axis_y
            printf "<text x=\"%.1f\" y=\"%d\" font-size=\"17\" text-anchor=\"middle\" fill=\"#555\">%s</text>\n", x, axis_y + 22, fmt_tick(10 ^ e)
        }
    } else {
        for (t = 0; t <= hi + step / 2; t += step) {
            x = label_w + pos(t)
            printf "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ccc\"/>\n", x, top - 4, x, axis_y
            printf "<text x=\"%.1f\" y=\"%d\" font-size=\"17\" text-anchor=\"middle\" fill=\"#555\">%s</text>\n", x, axis_y + 22, fmt_tick(t)
        }
    }
    printf "<text x=\"%d\" y=\"%d\" font-size=\"17\" text-anchor=\"middle\" fill=\"#555\">GFLOPS</text>\n", label_w + plot_w / 2, axis_y + 46

    # Bars: the ladder's rungs blue, libraries orange, the serial loop grey, wrong results red.
    for (i = 1; i <= k; i++) {
        y = top + (i - 1) * (bar_h + gap)
        colour = "#3b7dd8"
        if (b_case[i] ~ /BLAS|CLBlast/) colour = "#e08a1e"
        if (b_case[i] ~ /^serial/) colour = "#8a8a8a"
        name = b_case[i]
        if (b_check[i] !~ /^(ok|unchecked)/) { colour = "#c0392b"; name = name " (WRONG)" }
        w = pos(b_g[i]); if (w < 2) w = 2
        printf "<text x=\"%d\" y=\"%.1f\" font-size=\"20\" text-anchor=\"end\" fill=\"#222\">%s</text>\n", label_w - 8, y + bar_h / 2 + 7, xml(name)
        printf "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n", label_w, y, w, bar_h, colour
        printf "<text x=\"%.1f\" y=\"%.1f\" font-size=\"20\" fill=\"#222\">%s</text>\n", label_w + w + 8, y + bar_h / 2 + 7, fmt_value(b_g[i])
    }
    printf "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#444\"/>\n", label_w, top - 4, label_w, axis_y
    printf "</svg>\n"
}
