// Preprocessing kernels ourselves, once, with fixed macros (see preprocess.hpp).
#include "workbook/preprocess.hpp"

#include "workbook/errors.hpp"
#include "workbook/process.hpp"
#include "workbook/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string_view>

namespace workbook {

const std::vector<std::string>& fixed_macros() {
    // OpenCL C 1.2, which NVIDIA's, PoCL's and Oclgrind's compilers all accept; the 2.0 and 3.0
    // names exist so that a version test reads as false, never as an unknown macro.
    static const std::vector<std::string> macros = {
        "__OPENCL_VERSION__=120", "__OPENCL_C_VERSION__=120", "CL_VERSION_1_0=100", "CL_VERSION_1_1=110",
        "CL_VERSION_1_2=120",     "CL_VERSION_2_0=200",       "CL_VERSION_3_0=300", "__ENDIAN_LITTLE__=1"};
    return macros;
}

namespace {

// Where a kernel reads another file or asks whether one exists: the preprocessor would do it on
// the machine that builds, so it is refused before the preprocessor runs.
void refuse_file_reads(const KernelSource& source) {
    std::istringstream lines(as_preprocessor_reads(source.text));
    int number = 0;
    for (std::string line; std::getline(lines, line);) {
        ++number;
        if (reads_another_file(line))
            throw BuildError(fmt::format("{}:{}: a kernel is one file: it may not include, embed or look for other "
                                         "files.\nFix: paste what you need into {}",
                                         source.path, number, std::filesystem::path(source.path).filename().string()));
    }
}

struct Options {
    std::vector<std::string> defines;  // "-DNAME=value", "-UNAME", in order
    std::string rest;                  // for the OpenCL compiler
};

// Splits a build option string: -D and -U go to the preprocessor (both spellings, "-DX" and
// "-D X"), -I is dropped (there is no include path), the rest stays for the compiler.
Options split_options(const std::string& options) {
    Options o;
    std::istringstream words(options);
    std::vector<std::string> w;
    for (std::string s; words >> s;) w.push_back(s);
    for (std::size_t i = 0; i < w.size(); ++i) {
        const std::string& s = w[i];
        if (s == "-D" || s == "-U" || s == "-I") {
            if (i + 1 == w.size())
                throw BuildError(fmt::format("build options \"{}\" end with {}, which needs a name after it", options, s));
            if (s != "-I") o.defines.push_back(s + w[i + 1]);
            ++i;
        } else if (s.rfind("-D", 0) == 0 || s.rfind("-U", 0) == 0) {
            o.defines.push_back(s);
        } else if (s.rfind("-I", 0) != 0) {
            o.rest += (o.rest.empty() ? "" : " ") + s;
            if (s == "-cl-fast-relaxed-math") o.defines.push_back("-D__FAST_RELAXED_MATH__=1");
        }
    }
    return o;
}

std::string cpp_command() {
    if (const char* v = std::getenv("WORKBOOK_CPP"); v && *v) return v;
    for (const char* p : {"/usr/bin/cpp", "/usr/local/bin/cpp", "/bin/cpp"})
        if (std::filesystem::exists(p)) return p;
    throw BuildError("the C preprocessor is not installed: the workbook preprocesses every kernel itself, so that "
                     "the device and the race pass compile the same program.\nFix: apt-get install cpp (or set "
                     "WORKBOOK_CPP to a cpp binary)");
}

bool is_directive(std::string_view line) {
    const auto first = line.find_first_not_of(" \t");
    return first != std::string_view::npos && line[first] == '#';
}

std::string_view last_line(const std::string& text) {
    const auto nl = text.rfind('\n');
    return nl == std::string::npos ? std::string_view(text) : std::string_view(text).substr(nl + 1);
}

// Rebuilds the source's line structure from cpp's output: what cpp wrote for source line k goes
// on line k (its linemarkers say which line that is), so compiler messages keep their lines.
std::string by_source_line(const std::string& output, std::size_t source_lines) {
    // A linemarker, `# LINE "FILE" FLAGS...`: read by hand (FILE is the kernel's own #line name).
    const auto marker = [](const std::string& line, std::size_t& number, std::string& file) {
        if (line.compare(0, 2, "# ") != 0 || line.size() < 3 || !std::isdigit(static_cast<unsigned char>(line[2])))
            return false;
        std::size_t i = 2;
        while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
        if (i - 2 > 9 || line.compare(i, 2, " \"") != 0) return false;
        const std::size_t close = line.rfind('"');
        if (close <= i + 1) return false;
        for (std::size_t k = close + 1; k < line.size(); ++k)
            if (!std::isdigit(static_cast<unsigned char>(line[k])) && line[k] != ' ') return false;
        number = std::stoul(line.substr(2, i - 2));
        file = line.substr(i + 2, close - i - 2);
        return true;
    };
    std::vector<std::string> lines(source_lines);
    std::size_t at = 0;  // 0-based line of the next output line
    bool ours = false;   // in the kernel's text, not in cpp's <built-in> or <command-line>
    std::istringstream in(output);
    std::size_t number = 0;
    std::string file;
    for (std::string line; std::getline(in, line);) {
        if (marker(line, number, file)) {  // cpp starts with line 0
            ours = file.empty() || file[0] != '<' || file == "<stdin>";
            at = number > 0 ? number - 1 : 0;
            continue;
        }
        if (ours && !line.empty()) {
            // A #line of the kernel's own may name any number: past the end, the text is kept
            // on a line after the last (never an allocation the size of that number).
            if (at >= lines.size()) lines.resize(std::min(at, lines.size()) + 1);
            at = std::min(at, lines.size() - 1);
            // A directive cpp wrote (a #pragma, from _Pragma in a macro too) has a line of its
            // own, and so has what follows it (else the pragma would swallow it).
            lines[at] += (lines[at].empty() ? "" : is_directive(line) || is_directive(last_line(lines[at])) ? "\n" : " ") + line;
        }
        ++at;
    }
    std::string text;
    for (const auto& l : lines) text += l + '\n';
    return text;
}

// The first identifier of the compiler's reserved namespace left in `text` (string and character
// literals and #pragma lines aside), other than OpenCL's own keywords, with its line; or empty.
std::pair<std::string, int> reserved_identifier(const std::string& text) {
    static const std::vector<std::string> keywords = {"__kernel",     "__global",     "__local",      "__constant",
                                                      "__private",    "__generic",    "__read_only",  "__write_only",
                                                      "__read_write", "__attribute__"};
    std::istringstream lines(text);
    int number = 0;
    for (std::string line; std::getline(lines, line);) {
        ++number;
        const auto first = line.find_first_not_of(" \t");
        if (first != std::string::npos && line.compare(first, 7, "#pragma") == 0) continue;
        for (std::size_t i = 0; i < line.size();) {
            const char c = line[i];
            if (c == '"' || c == '\'') {  // a literal: skipped to its closing quote
                for (++i; i < line.size() && line[i] != c; ++i)
                    if (line[i] == '\\') ++i;
                ++i;
            } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
                std::size_t end = i;
                while (end < line.size() && (std::isalnum(static_cast<unsigned char>(line[end])) || line[end] == '_')) ++end;
                const std::string word = line.substr(i, end - i);
                if (word.size() > 2 && word.compare(0, 2, "__") == 0 &&
                    std::find(keywords.begin(), keywords.end(), word) == keywords.end())
                    return {word, number};
                i = end;
            } else {
                ++i;
            }
        }
    }
    return {{}, 0};
}

}  // namespace

Preprocessed preprocess(const KernelSource& source, const std::string& options) {
    refuse_file_reads(source);
    const Options o = split_options(options);
    std::vector<std::string> argv = {cpp_command(), "-undef", "-nostdinc", "-w", "-std=c11", "-x", "c"};
    for (const auto& m : fixed_macros()) argv.push_back("-D" + m);
    argv.insert(argv.end(), o.defines.begin(), o.defines.end());
    argv.push_back("-");
    ProcessLimits limits;
    limits.stdin_text = source.text;
    // Nothing inherited (a runner under Oclgrind carries its preload); __DATE__ and __TIME__ fixed,
    // so that two builds of one kernel are one program.
    limits.environment = std::vector<std::string>{"PATH=/usr/bin:/bin", "LC_ALL=C", "SOURCE_DATE_EPOCH=0"};
    limits.cpu_seconds = 5;
    constexpr std::size_t cap = 8 << 20;  // a macro that doubles itself reaches this or the CPU limit
    const ProcessResult r = run_bounded(argv, std::chrono::seconds(20), limits, cap);
    // cpp's own messages name "<stdin>": the .cl file's name instead. Its driver says when the
    // compiler it ran was stopped at the CPU limit.
    static const std::regex message(R"(^<stdin>:(\d+):(?:(\d+):)? ?((?:fatal )?error: .*)$)");
    std::string summary;
    bool stopped = r.timed_out || r.signaled || r.dropped_bytes > 0;
    if (!r.passed()) {
        std::istringstream lines(r.output);
        std::smatch m;
        for (std::string line; std::getline(lines, line);) {
            line = clipped(line);  // the message quotes the kernel (text.hpp: no long line to std::regex)
            if (std::regex_match(line, m, message))
                summary += fmt::format("  {}:{}:{}: {}\n", source.path, m[1].str(), m[2].matched ? m[2].str() : "0",
                                       sanitize(m[3].str(), 1024));
        }
        // The driver's line may follow unfinished output on the same line.
        stopped = stopped || r.output.find("signal terminated program") != std::string::npos;
    }
    if (stopped)
        throw BuildError(fmt::format("{} could not be preprocessed: {} (do its macros expand without end?).\nFix: "
                                     "look for a macro that expands to itself more than once",
                                     source.path, r.dropped_bytes > 0 ? "it expands to more than 8 MiB" : "it ran past 5 s"));
    if (!r.passed())
        throw BuildError(fmt::format("{} failed to preprocess ({}).\n{}  build options: \"{}\"", source.path, r.status(),
                                     summary.empty() ? "  (the preprocessor gave no message)\n" : summary, options));
    const auto source_lines = static_cast<std::size_t>(std::count(source.text.begin(), source.text.end(), '\n') + 1);
    Preprocessed p{by_source_line(r.output, source_lines), o.rest};
    if (const auto [word, line] = reserved_identifier(p.text); !word.empty())
        throw BuildError(fmt::format("{}:{}: uses {}, a name reserved to the compiler (after preprocessing): its "
                                     "meaning may differ between the device and the race pass's simulator, so the "
                                     "race pass would check another program from the one that runs.\nFix: remove "
                                     "it; a kernel here may use only the OpenCL keywords that start with __",
                                     source.path, line, word));
    return p;
}

}  // namespace workbook
