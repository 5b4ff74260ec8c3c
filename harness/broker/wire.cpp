// The broker's wire protocol: framing, serialisation and the table of handle-valued info
// parameters that both sides translate.
#include "wire.hpp"

#include <cerrno>
#include <sys/socket.h>
#include <unistd.h>

namespace workbook::broker {

namespace {

// A frame larger than this is a corrupt or hostile length, not data (a witness case's buffers are
// a few MiB): the broker runs outside the runner's memory limits, so a length is never trusted.
constexpr std::uint64_t max_frame = std::uint64_t{1} << 30;

void write_all(int fd, const void* data, std::size_t size) {
    const auto* p = static_cast<const char*>(data);
    while (size > 0) {
        const ssize_t n = ::send(fd, p, size, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw WireError("broker connection lost while sending");
        p += n;
        size -= static_cast<std::size_t>(n);
    }
}

// False only when the stream ends before the first byte.
bool read_all(int fd, void* data, std::size_t size) {
    auto* p = static_cast<char*>(data);
    std::size_t got = 0;
    while (got < size) {
        const ssize_t n = ::read(fd, p + got, size - got);
        if (n < 0 && errno == EINTR) continue;
        if (n == 0 && got == 0) return false;
        if (n <= 0) throw WireError("broker connection lost while receiving");
        got += static_cast<std::size_t>(n);
    }
    return true;
}

}  // namespace

HandleParam handle_param(InfoOf of, cl_uint param) {
    auto handle = [](Kind k) { return HandleParam{true, k, false}; };
    switch (of) {
    case InfoOf::Device:
        if (param == CL_DEVICE_PLATFORM) return handle(Kind::Platform);
        if (param == CL_DEVICE_PARENT_DEVICE) return handle(Kind::Device);
        break;
    case InfoOf::Context:
        if (param == CL_CONTEXT_DEVICES) return handle(Kind::Device);
        if (param == CL_CONTEXT_PROPERTIES) return HandleParam{true, Kind::Platform, true};
        break;
    case InfoOf::Queue:
        if (param == CL_QUEUE_CONTEXT) return handle(Kind::Context);
        if (param == CL_QUEUE_DEVICE) return handle(Kind::Device);
        if (param == CL_QUEUE_DEVICE_DEFAULT) return handle(Kind::Queue);
        break;
    case InfoOf::Mem:
        if (param == CL_MEM_CONTEXT) return handle(Kind::Context);
        if (param == CL_MEM_ASSOCIATED_MEMOBJECT) return handle(Kind::Mem);
        break;
    case InfoOf::Program:
        if (param == CL_PROGRAM_CONTEXT) return handle(Kind::Context);
        if (param == CL_PROGRAM_DEVICES) return handle(Kind::Device);
        break;
    case InfoOf::Kernel:
        if (param == CL_KERNEL_CONTEXT) return handle(Kind::Context);
        if (param == CL_KERNEL_PROGRAM) return handle(Kind::Program);
        break;
    case InfoOf::Event:
        if (param == CL_EVENT_COMMAND_QUEUE) return handle(Kind::Queue);
        if (param == CL_EVENT_CONTEXT) return handle(Kind::Context);
        break;
    default:
        break;
    }
    return {};
}

cl_int invalid_code(Kind kind) {
    switch (kind) {
    case Kind::Platform: return CL_INVALID_PLATFORM;
    case Kind::Device: return CL_INVALID_DEVICE;
    case Kind::Context: return CL_INVALID_CONTEXT;
    case Kind::Queue: return CL_INVALID_COMMAND_QUEUE;
    case Kind::Mem: return CL_INVALID_MEM_OBJECT;
    case Kind::Program: return CL_INVALID_PROGRAM;
    case Kind::Kernel: return CL_INVALID_KERNEL;
    case Kind::Event: return CL_INVALID_EVENT;
    }
    return CL_INVALID_VALUE;
}

Writer& Writer::raw(const void* data, std::size_t size) {
    const auto* p = static_cast<const std::byte*>(data);
    buffer_.insert(buffer_.end(), p, p + size);
    return *this;
}

Writer& Writer::bytes(const void* data, std::size_t size) {
    put<std::uint64_t>(size);
    return size ? raw(data, size) : *this;
}

Writer& Writer::ids(const std::vector<std::uint64_t>& ids) {
    put<std::uint32_t>(static_cast<std::uint32_t>(ids.size()));
    for (const auto id : ids) put(id);
    return *this;
}

const std::byte* Reader::take(std::size_t size) {
    if (size > buffer_.size() - at_) throw WireError("truncated broker message");
    const std::byte* p = buffer_.data() + at_;
    at_ += size;
    return p;
}

std::pair<const std::byte*, std::size_t> Reader::bytes() {
    const auto size = get<std::uint64_t>();
    if (size > buffer_.size() - at_) throw WireError("truncated broker message");
    return {take(static_cast<std::size_t>(size)), static_cast<std::size_t>(size)};
}

std::string Reader::text() {
    const auto [p, n] = bytes();
    return std::string(reinterpret_cast<const char*>(p), n);
}

std::vector<std::uint64_t> Reader::ids() {
    const auto n = get<std::uint32_t>();
    if (n > (buffer_.size() - at_) / sizeof(std::uint64_t)) throw WireError("truncated broker message");
    std::vector<std::uint64_t> out(n);
    for (auto& id : out) id = get<std::uint64_t>();
    return out;
}

void send_frame(int fd, const Writer& message) {
    const std::uint64_t size = message.data().size();
    write_all(fd, &size, sizeof size);
    write_all(fd, message.data().data(), message.data().size());
}

bool receive_frame(int fd, std::vector<std::byte>& out) {
    std::uint64_t size = 0;
    if (!read_all(fd, &size, sizeof size)) return false;
    if (size > max_frame) throw WireError("oversized broker frame");
    out.resize(static_cast<std::size_t>(size));
    if (size > 0 && !read_all(fd, out.data(), out.size())) throw WireError("broker frame cut short");
    return true;
}

}  // namespace workbook::broker
