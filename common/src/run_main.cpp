// App::run and the catch chain (see run_main.hpp).
#include "workbook/run_main.hpp"

#include "workbook/errors.hpp"
#include "workbook/random.hpp"
#include "workbook/timing.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>

namespace workbook {

std::string error_hint(int code) {
    switch (code) {
        case CL_INVALID_WORK_GROUP_SIZE:
            return "The local size must divide the global size in every dimension (before OpenCL 2.0) and its "
                   "product must not exceed the kernel's CL_KERNEL_WORK_GROUP_SIZE or the device maximum.";
        case CL_INVALID_KERNEL_NAME:
            return "No __kernel of that name is in the program: check the spelling against the .cl file.";
        case CL_INVALID_ARG_INDEX:
            return "The kernel has fewer arguments than the host tried to set.";
        case CL_INVALID_ARG_SIZE:
        case CL_INVALID_ARG_VALUE:
            return "A kernel argument's host type does not match the kernel's parameter (cl_uint for unsigned "
                   "int, cl::Buffer for a pointer, cl::Local for __local).";
        case CL_INVALID_KERNEL_ARGS:
            return "A kernel argument was never set before the enqueue.";
        case CL_INVALID_BUFFER_SIZE:
            return "A buffer of zero bytes, or larger than CL_DEVICE_MAX_MEM_ALLOC_SIZE, was requested.";
        case CL_INVALID_VALUE:
            return "A size or offset is out of range: a read or write past the end of a buffer is the usual cause.";
        case CL_INVALID_OPERATION:
            return "The call is not allowed on this object, e.g. a host read of a buffer created with "
                   "CL_MEM_HOST_NO_ACCESS.";
        case CL_OUT_OF_RESOURCES:
            return "On many GPUs this also reports a kernel that read or wrote out of bounds.";
        case CL_PROFILING_INFO_NOT_AVAILABLE:
            return "Profiling needs a queue created with CL_QUEUE_PROFILING_ENABLE and a finished command.";
        default:
            return {};
    }
}

std::string describe_exception(std::exception_ptr error) {
    try {
        std::rethrow_exception(error);
    } catch (const BuildError& e) {
        return fmt::format("error: {}", e.what());
    } catch (const Error& e) {
        return fmt::format("error: {}", e.what());
    } catch (const cl::Error& e) {
        const std::string hint = error_hint(e.err());
        return fmt::format("OpenCL error: {} failed with {}{}{}", e.what(), describe_error(e.err()),
                           hint.empty() ? "" : "\n  hint: ", hint);
    } catch (const std::exception& e) {
        return fmt::format("error: {}", e.what());
    } catch (...) {
        return "error: an unknown exception was thrown";
    }
}

App::App(std::string description) : cli_(std::make_unique<CLI::App>(std::move(description))) {
    cli_->add_option("--platform", flags_.platform.value,
                     "platform index or part of its name (default: $WORKBOOK_PLATFORM, else the first)");
    cli_->add_option("--device", flags_.device.value,
                     "device index (as --list numbers them, after the other filters) or part of its name "
                     "(default: $WORKBOOK_DEVICE)");
    cli_->add_option("--device-type", flags_.type.value,
                     "cpu, gpu, accelerator, default or all (default: $WORKBOOK_DEVICE_TYPE)");
    cli_->add_flag("--list", list_, "list platforms and devices, then exit");
    flags_.platform.source = "--platform";
    flags_.device.source = "--device";
    flags_.type.source = "--device-type";
}

App::~App() = default;

template <class Number>
void App::option(const std::string& name, Number& value, const std::string& what, Number low, Number high) {
    cli_->add_option(name, value, what)->check(CLI::Range(low, high));
}
template void App::option<int>(const std::string&, int&, const std::string&, int, int);
template void App::option<long>(const std::string&, long&, const std::string&, long, long);
template void App::option<unsigned long>(const std::string&, unsigned long&, const std::string&, unsigned long,
                                         unsigned long);
template void App::option<unsigned long long>(const std::string&, unsigned long long&, const std::string&,
                                              unsigned long long, unsigned long long);

void App::option(const std::string& name, std::string& value, const std::string& what) {
    cli_->add_option(name, value, what)->capture_default_str();
}

int App::run(int argc, char** argv, const std::function<int(Run&)>& body) {
    try {
        cli_->parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return cli_->exit(e);
    }
    try {
        if (list_) {
            std::cout << "OpenCL devices:\n" << format_device_list(list_devices());
            return exit_ok;
        }
        const auto choice = select_device(DeviceQuery::from_environment().overridden_by(flags_));
        std::cout << "Device: " << choice.describe() << "\n";
        Run run{choice, cl::Context(choice.device), {}, session_seed()};
        run.queue = make_queue(run.context, choice.device);
        std::cout << "Random " << seed_banner(run.seed) << "\n" << std::flush;
        return body(run);
    } catch (...) {
        std::cout << std::flush;
        std::cerr << describe_exception(std::current_exception()) << "\n";
        return exit_error;
    }
}

}  // namespace workbook
