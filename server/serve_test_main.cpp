// contest_serve_test: the helper of tests/contest/web_chromium.sh (no OpenCL, no judge).
//
//   contest_serve_test serve DB PORT TOKEN [OPTION VALUE]...   (options as contest serve's, and
//                       --race-check off: as if the judge ran with --no-race-check)
//                                                       serve DB with the judge off (PORT 0: any; TOKEN -:
//                                                       none, with --roster); options --roster, --tokens,
//                                                       --reissue, --interval, --max-queued, --request-deadline,
//                                                       --max-per-address, --opens, --closes (UTC, as
//                                                       the database writes times)
//   contest_serve_test record DB ALIAS GFLOPS[~PCT] [DEVICE]
//                       queue a submission and record a run for it, its ratio to a 500 GFLOPS
//                       yardstick spread by PCT percent either side (default 1)
//   contest_serve_test post PORT TOKEN ALIAS FILE       upload FILE to /api/submit (TOKEN -: none)
//   contest_serve_test get PORT PATH                    GET a path
//   contest_serve_test file-name DB ID                  the file name stored for submission ID
//
// post and get print the HTTP status on the first line and the body after it; they exit 0 when
// an answer came back, whatever its status.
#include "contest/db.hpp"
#include "server/serve.hpp"

#include <httplib.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

namespace {

using namespace workbook::contest;
using namespace workbook::server;

int usage() {
    std::cerr << "usage: contest_serve_test serve DB PORT TOKEN [OPTION VALUE]...\n"
                 "       contest_serve_test record DB ALIAS GFLOPS[~PCT] [DEVICE]\n"
                 "       contest_serve_test record-many DB PREFIX COUNT DEVICES\n"
                 "       contest_serve_test post PORT TOKEN ALIAS FILE\n"
                 "       contest_serve_test get PORT PATH\n"
                 "       contest_serve_test file-name DB ID\n";
    return 2;
}

int print_result(const httplib::Result& result) {
    if (!result) {
        std::cerr << "no answer: " << httplib::to_string(result.error()) << "\n";
        return 1;
    }
    std::cout << result->status << "\n" << result->body << "\n";
    return 0;
}

int run(int argc, char** argv) {
    const std::string command = argc > 1 ? argv[1] : "";
    if (command == "serve" && argc >= 5 && argc % 2 == 1) {
        ServeOptions options;
        options.db = argv[2];
        options.port = std::stoi(argv[3]);
        if (std::string(argv[4]) != "-") options.token = argv[4];
        options.judge = false;
        for (int i = 5; i + 1 < argc; i += 2) {
            const std::string name = argv[i], value = argv[i + 1];
            if (name == "--roster") options.roster = value;
            else if (name == "--tokens") options.tokens_file = value;
            else if (name == "--reissue") options.reissue.push_back(value);
            else if (name == "--interval") options.min_interval_s = std::stoi(value);
            else if (name == "--max-queued") options.max_queued = std::stoi(value);
            else if (name == "--request-deadline") options.request_deadline_s = std::stod(value);
            else if (name == "--max-per-address") options.max_per_address = std::stoi(value);
            else if (name == "--race-check") options.judge_options.race_check = value != "off";
            else if (name == "--opens") options.opens = value;  // in the database's format
            else if (name == "--closes") options.closes = value;
            else return usage();
        }
        return serve(options);
    }
    if (command == "record-many" && argc == 6) {
        // COUNT entries, PREFIX1 .. PREFIXCOUNT, each with one run on one of DEVICES devices in
        // turn: boards of COUNT rows in all (ranking costs as the square of a board's rows).
        Database db(argv[2]);
        const int count = std::stoi(argv[4]), devices = std::max(1, std::stoi(argv[5]));
        for (int k = 1; k <= count; ++k) {
            const std::string alias = argv[3] + std::to_string(k);
            Run run;
            run.device = "Test Device " + std::to_string(k % devices);
            run.driver = "1.0";
            run.n = 1024;
            run.gflops = 100.0 + k;
            run.ratio = run.ratio_low = run.ratio_high = run.gflops / 500;
            run.median_s = run.min_s = run.max_s = 2.0 * run.n * run.n * run.n / (run.gflops * 1e9);
            run.repeats = 7;
            run.sizes = "1,17,100,257,1024";
            run.kernel_hash = "test " + alias;
            db.record(db.queue(alias, "kernel.cl", "// recorded by contest_serve_test: " + alias + "\n", 0), run);
        }
        std::cout << count << "\n";
        return 0;
    }
    if (command == "record" && (argc == 5 || argc == 6)) {
        Database db(argv[2]);
        // Each call a kernel of its own (its text and fingerprint): the board pools only an alias's
        // identical kernel judged again.
        const std::string text = std::string("// recorded by contest_serve_test: ") + argv[3] + " " + argv[4] + "\n";
        const std::int64_t id = db.queue(argv[3], "kernel.cl", text, 0);
        Run run;
        run.device = argc == 6 ? argv[5] : "Test Device";
        run.driver = "1.0";
        run.n = 1024;
        const std::string speed = argv[4];
        const auto tilde = speed.find('~');
        run.gflops = std::stod(speed.substr(0, tilde));
        const double spread = tilde == std::string::npos ? 0.01 : std::stod(speed.substr(tilde + 1)) / 100;
        run.ratio = run.gflops / 500;
        run.ratio_low = run.ratio * (1 - spread);
        run.ratio_high = run.ratio * (1 + spread);
        run.median_s = run.min_s = run.max_s = 2.0 * run.n * run.n * run.n / (run.gflops * 1e9);
        run.repeats = 7;
        run.sizes = "1,17,100,257,1024";
        run.kernel_hash = "test " + std::to_string(id);
        db.record(id, run);
        std::cout << id << "\n";
        return 0;
    }
    if (command == "post" && argc == 6) {
        std::ifstream in(argv[5], std::ios::binary);
        if (!in) throw std::runtime_error(std::string("cannot read ") + argv[5]);
        std::stringstream content;
        content << in.rdbuf();
        httplib::Client client("127.0.0.1", std::stoi(argv[2]));
        client.set_read_timeout(10);
        httplib::Headers headers;
        if (std::string(argv[3]) != "-") headers.emplace("Authorization", std::string("Bearer ") + argv[3]);
        const httplib::MultipartFormDataItems items = {
            {"alias", argv[4], "", ""},
            {"kernel", content.str(), "../../etc/my kernel.cl", "text/plain"},
        };
        return print_result(client.Post("/api/submit", headers, items));
    }
    if (command == "get" && argc == 4) {
        httplib::Client client("127.0.0.1", std::stoi(argv[2]));
        client.set_read_timeout(10);
        return print_result(client.Get(argv[3]));
    }
    if (command == "file-name" && argc == 4) {
        const auto sub = Database(argv[2]).submission(std::stoll(argv[3]));
        if (!sub) throw std::runtime_error("no such submission");
        std::cout << sub->file_name << "\n";
        return 0;
    }
    return usage();
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::cerr << "contest_serve_test: " << e.what() << "\n";
        return 2;
    }
}
