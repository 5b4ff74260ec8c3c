// Exercise 04 demo: d = a + b + c with your vadd_abc_on_device(), checked on the CPU.
#include "vadd_abc.hpp"

#include "workbook/check.hpp"
#include "workbook/reference.hpp"
#include "workbook/run_main.hpp"
#include "workbook/timing.hpp"

int main(int argc, char** argv) {
    workbook::App app("Exercise 04 (D = A + B + C): a three-input kernel on the chosen device, checked on the CPU");
    std::size_t count = 1 << 20;
    app.option("--count", count, "number of elements", std::size_t{1}, std::size_t{1} << 28);
    return app.run(argc, argv, [&](workbook::Run& run) {
        auto rng = workbook::Rng::derived(run.seed, "demo");
        const auto a = rng.uniform_vector(count), b = rng.uniform_vector(count), c = rng.uniform_vector(count);
        std::vector<float> d(count, workbook::poison_value());

        workbook::Stopwatch clock;
        workbook::ex04::vadd_abc_on_device(run.choice.device, a.data(), b.data(), c.data(), d.data(), count);
        const double seconds = clock.seconds();

        const std::vector<std::span<const float>> terms{a, b, c};
        return workbook::report_result("d = a + b + c", count, seconds,
                                       workbook::compare(workbook::reference::elementwise_sum(terms), d,
                                                         workbook::reference::sum_tolerance(3),
                                                         workbook::reference::elementwise_magnitude(terms)));
    });
}
