// workbook-broker's state: the real OpenCL objects it holds for its one client (by id), the secret
// it passes to the checker's own kernels, and the record of kernel enqueues it reports at the end.
#pragma once

#include "wire.hpp"

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace workbook::broker {

// A reply that is its status alone.
inline Writer status(cl_int code) {
    Writer w;
    w.put<cl_int>(code);
    return w;
}

// A bad id or argument found while decoding a request: its cl_int goes back as the reply.
struct Refused {
    cl_int code;
};

// A copy of a buffer argument's contents as the kernel was about to read them (the watched inputs).
struct Staged {
    cl_uint arg = 0;
    cl_mem copy = nullptr;   // the broker's own buffer, released at the report
    cl_event read = nullptr;  // its read into `bytes`
    std::vector<std::byte> bytes;
};

struct KernelRun {
    std::string name;
    std::vector<Staged> inputs;
    cl_uint dims = 0;
    std::vector<std::size_t> offset, global, local;  // local empty: chosen by the runtime
    cl_event event = nullptr;                         // retained by the broker until the report
    bool profiling = false;
};

// A bound on a launch of one of the checker's kernels: every buffer argument must hold at least
// value^power elements of 4 bytes, value the kernel's scalar argument `arg` (vadd:count:1, mmul:N:2).
// The checker's kernels index their buffers up to that (their own bounds test), so a launch with
// smaller buffers could only read past them, in the broker's memory on a CPU device.
struct Bound {
    std::string arg;
    int power = 1;
};

class Server {
public:
    // `secret`: a 32-bit number in decimal, the value of the last argument of each of the checker's
    // kernels that names it `workbook_secret` (secret_argument). The broker sets that argument
    // when it makes the kernel, and the client never sees it: the kernel has one argument fewer
    // for it, and that index is invalid. `ours`: the program sources (the checker's own kernels)
    // that alone get it, built with no option of the client's. Where the checker named any, no
    // other source is built at all.
    // `watched`: arrays the checker gave its runner (the graded inputs): every launch's buffer
    // arguments are copied as the kernel is about to run, and the report says which of them began
    // with which watched array. The checker, not the broker, decides what that proves.
    // `bounds`: by kernel name, the bound each launch of the checker's kernel of that name is held to.
    static constexpr const char* secret_argument = "workbook_secret";
    Server(int socket_fd, std::string secret, std::set<std::string> ours,
           std::vector<std::vector<std::byte>> watched = {}, std::map<std::string, Bound> bounds = {});
    // Serves until the client hangs up; false when the connection failed mid-frame.
    bool serve();
    // The report (one JSON line): every kernel enqueue, its sizes and device times.
    std::string report();

private:
    std::set<std::string> ours_;                        // sources built with the secret
    std::vector<std::vector<std::byte>> watched_;
    std::size_t watched_bytes_ = 0;                     // the longest watched array
    // Copies made for the report, in bytes: past this a launch's inputs are not copied (a runner
    // launching without end would otherwise grow the broker's memory).
    static constexpr std::uint64_t max_staged_bytes = std::uint64_t{256} << 20;
    std::uint64_t staged_bytes_ = 0;
    std::map<cl_kernel, std::map<cl_uint, cl_mem>> kernel_mems_;  // each kernel's buffer arguments
    // Bytes of buffers made so far, released or not: the broker is outside the runner's memory
    // limits, so a runner asking for buffers without end is refused past this.
    static constexpr std::uint64_t max_buffer_bytes = std::uint64_t{2} << 30;
    std::uint64_t buffer_bytes_ = 0;
    std::map<std::uint64_t, std::string> sources_;      // program id -> its source
    struct Entry {
        Kind kind;
        void* handle;
    };

    Writer handle(Op op, Reader& in);
    Writer info(Reader& in);
    Writer create_context(Reader& in, bool from_type);
    Writer create_queue(Reader& in);
    Writer create_buffer(Reader& in);
    Writer build_program(Reader& in);
    // For a kernel of the checker's own programs: sets its secret argument where its last argument
    // is secret_argument, and finds its bound's argument; the error of setting it, else CL_SUCCESS.
    cl_int adopt(cl_program program, cl_kernel kernel);
    // CL_SUCCESS, or CL_INVALID_KERNEL_ARGS where a buffer argument is smaller than the kernel's bound.
    cl_int within_bound(cl_kernel kernel);
    Writer create_kernels(Reader& in);
    Writer set_kernel_arg(Reader& in);
    Writer enqueue_ndrange(Reader& in);
    // Copies of `kernel`'s buffer arguments made on `queue` after `waits`; the kernel must wait
    // for the events added to `waits`.
    std::vector<Staged> stage_inputs(cl_command_queue queue, cl_kernel kernel, std::vector<cl_event>& waits);
    Writer enqueue_read(Reader& in);
    Writer take_read(Reader& in);
    Writer enqueue_write(Reader& in);
    Writer enqueue_copy(Reader& in);
    Writer enqueue_fill(Reader& in);
    Writer enqueue_sync(Reader& in, bool barrier);
    Writer wait(Reader& in);
    Writer release(Reader& in);

    std::uint64_t add(Kind kind, void* handle);
    std::uint64_t id_of(Kind kind, void* handle);  // 0 for null or unknown; registers platforms, devices
    void* lookup(Kind kind, std::uint64_t id, bool nullable = false);
    template <typename T>
    T get(Reader& in, Kind kind, bool nullable = false) {
        return static_cast<T>(lookup(kind, in.get<std::uint64_t>(), nullable));
    }
    std::vector<cl_event> wait_list(Reader& in);
    // The event of a command: registered for the client if it asked, released otherwise.
    std::uint64_t hand_out(cl_event event, bool wanted);
    // A command's reply: success, then its event's id (0 when the client did not ask for it).
    Writer event_reply(cl_event event, bool wanted);
    void collect_writes();
    std::string scrub(std::string text) const;
    bool looks_like_text(const std::vector<std::byte>& value) const;

    int fd_;
    std::string secret_;
    cl_uint secret_value_ = 0;
    std::set<cl_program> checkers_programs_;      // built from one of `ours`
    std::map<cl_kernel, cl_uint> secret_args_;    // a kernel of those -> its secret argument's index
    std::map<std::string, Bound> bounds_;
    struct BoundArg {
        cl_uint index = 0;
        int power = 1;
        bool is_signed = false;
        std::optional<std::int64_t> value;  // as last set
        std::vector<cl_uint> buffers;        // its __global arguments: each must be a buffer
    };
    std::map<cl_kernel, BoundArg> bound_args_;
    std::vector<std::string> secret_pieces_;  // longest first: what scrub() hides
    std::unordered_map<std::uint64_t, Entry> objects_;
    std::unordered_map<void*, std::uint64_t> ids_;
    std::uint64_t next_id_ = 1;
    std::map<std::uint64_t, std::string> client_options_;  // program id -> the client's own options
    std::set<std::uint64_t> profiling_queues_;
    std::vector<cl_event> user_events_;  // retained, to fail any left unset at the end
    std::map<std::uint64_t, std::pair<cl_event, std::vector<std::byte>>> reads_;  // token -> staging
    std::uint64_t next_token_ = 1;
    std::vector<std::pair<cl_event, std::vector<std::byte>>> writes_;  // staging until complete
    std::vector<KernelRun> runs_;
    // The copies' events (waited on by the kernels), and copies of launches that then failed:
    // their reads may still be on their way into memory that must live until the report.
    std::vector<cl_event> copies_;
    std::vector<Staged> stale_;
    // Waits (until `deadline`) for a staged copy's read; the watched arrays it begins with.
    std::vector<std::size_t> matches(Staged& s, std::chrono::steady_clock::time_point deadline);
    std::set<std::string> unsupported_;
};

}  // namespace workbook::broker
