// bench/ref_simdjson.cpp — a reference point for bench_read.sh, not part of
// gpuflame: simdjson's On-Demand API (Debian's libsimdjson-dev) pulling out of
// every trace event the fields gpuflame's reader reads — ph, cat, name (as
// unescaped strings), pid, tid, id (integers or strings), ts, dur (their
// number text), and from args: correlation, External id, stream, device,
// Python id, Python parent id, Python thread, bytes, name, labels.
//
// It shows what the fastest general JSON parser on this machine does with the
// same text, so a throughput goal can be read against the machine. Loading
// the file into memory is timed apart and left out of its MB/s (simdjson
// needs the whole text in memory); gpuflame's figures include reading.
//
// Usage: ref_simdjson TRACE.json   prints one line: events, parse ms, MB/s.
#include <simdjson.h>

#include <chrono>
#include <cstdio>
#include <string_view>

using namespace simdjson;

static bool needed_arg(std::string_view k)
{
	return k == "correlation" || k == "External id" || k == "stream" || k == "device" || k == "Python id" ||
	       k == "Python parent id" || k == "Python thread" || k == "bytes";
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		std::fprintf(stderr, "usage: ref_simdjson TRACE.json\n");
		return 2;
	}
	auto t0 = std::chrono::steady_clock::now();
	padded_string json;
	if (padded_string::load(argv[1]).get(json)) {
		std::fprintf(stderr, "ref_simdjson: cannot read %s\n", argv[1]);
		return 1;
	}
	auto t1 = std::chrono::steady_clock::now();
	ondemand::parser parser(json.size() + SIMDJSON_PADDING);
	uint64_t events = 0, sum = 0, text = 0;
	try {
		ondemand::document doc = parser.iterate(json);
		for (auto field : doc.get_object()) {
			if (std::string_view(field.unescaped_key()) != "traceEvents")
				continue;
			for (auto ev : field.value().get_array()) {
				events++;
				for (auto m : ev.get_object()) {
					std::string_view k = m.unescaped_key();
					ondemand::value v = m.value();
					if (k == "ph" || k == "cat" || k == "name") {
						text += std::string_view(v.get_string()).size();
					} else if (k == "pid" || k == "tid" || k == "id") {
						int64_t x;
						if (!v.get_int64().get(x))
							sum += (uint64_t)x;
						else
							text += v.raw_json_token().size();
					} else if (k == "ts" || k == "dur") {
						text += v.raw_json_token().size();
					} else if (k == "args" && v.type() == ondemand::json_type::object) {
						for (auto a : v.get_object()) {
							std::string_view ak = a.unescaped_key();
							int64_t x;
							if (needed_arg(ak)) {
								if (!a.value().get_int64().get(x))
									sum += (uint64_t)x;
							} else if (ak == "name" || ak == "labels") {
								std::string_view s;
								if (!a.value().get_string().get(s))
									text += s.size();
							}
						}
					}
				}
			}
		}
	} catch (simdjson_error &e) {
		std::fprintf(stderr, "ref_simdjson: %s: %s\n", argv[1], e.what());
		return 1;
	}
	auto t2 = std::chrono::steady_clock::now();
	double load = std::chrono::duration<double>(t1 - t0).count();
	double parse = std::chrono::duration<double>(t2 - t1).count();
	std::printf("simdjson %s (%s kernel): %llu events, load %.0f ms, parse %.0f ms, %.0f MB/s (parse only) [%llu %llu]\n",
		    SIMDJSON_STRINGIFY(SIMDJSON_VERSION), get_active_implementation()->name().c_str(), (unsigned long long)events,
		    load * 1e3, parse * 1e3, (double)json.size() / parse / 1e6, (unsigned long long)(sum & 1),
		    (unsigned long long)(text & 1));
	return 0;
}
