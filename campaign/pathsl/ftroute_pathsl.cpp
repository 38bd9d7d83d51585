// ftroute-pathsl: asks the SA (OpenSM) for the SL of many paths, one PathRecord Get (by SGID+DGID, libibmad ib_path_query_via) per pair, in
// one process. Used by `ftroute campaign` for OpenSM engines whose deadlock freedom rests on
// per-path SLs (dfsssp, lash, nue, torus-2QoS): OpenSM 3.3.23 dumps no path-SL file, and a single
// PathRecord GetTable for all pairs (`saquery -p`) needs RMPP, which umad2sim/ibsim do not carry
// (only the first 200-byte segment arrives). So every query is a single-record Get.
//
//   ftroute-pathsl [-C CA] [-P PORT] [-t TIMEOUT_MS] < pairs   (lines "src_port_guid dst_port_guid", hex)
//   stdout: "slid dlid sl" (decimal) per input pair, or "- sguid dguid" when the SA gave no path
//   record (no route, or no answer within the timeout). Exit 1 on malformed input (stderr names
//   the line) or when the SM cannot be found. GIDs use the default subnet prefix fe80::/64.
//
// Run it like any libibumad tool against ibsim: LD_PRELOAD=libumad2sim.so IBSIM_SOCKNAME=...
// (scripts/ftsim.sh tool ftroute-pathsl < pairs).
#include <infiniband/mad.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

namespace {
// GID = default subnet prefix fe80::/64 (OpenSM's default) + port GUID, network byte order.
void make_gid(ibmad_gid_t gid, unsigned long long guid) {
  std::memset(gid, 0, 16);
  gid[0] = 0xfe;
  gid[1] = 0x80;
  for (int i = 0; i < 8; ++i) gid[15 - i] = static_cast<uint8_t>(guid >> (8 * i));
}
}  // namespace

int main(int argc, char** argv) {
  char* ca = nullptr;
  int ca_port = 0, timeout_ms = 1000;
  int c;
  while ((c = getopt(argc, argv, "C:P:t:h")) != -1) {
    switch (c) {
      case 'C': ca = optarg; break;
      case 'P': ca_port = std::atoi(optarg); break;
      case 't': timeout_ms = std::atoi(optarg); break;
      default:
        std::fprintf(stderr, "usage: ftroute-pathsl [-C CA] [-P PORT] [-t TIMEOUT_MS] < pairs (\"src_guid dst_guid\" lines)\n");
        return 2;
    }
  }
  int classes[] = {IB_SMI_CLASS, IB_SMI_DIRECT_CLASS, IB_SA_CLASS};  // SMI: PortInfo for the SM LID
  ibmad_port* port = mad_rpc_open_port(ca, ca_port, classes, 3);
  if (!port) {
    std::fprintf(stderr, "ftroute-pathsl: cannot open the umad port\n");
    return 1;
  }
  mad_rpc_set_timeout(port, timeout_ms);
  mad_rpc_set_retries(port, 2);
  ib_portid_t sm{};
  if (ib_resolve_smlid_via(&sm, timeout_ms, port) < 0 || sm.lid == 0) {
    std::fprintf(stderr, "ftroute-pathsl: no SM LID (is OpenSM running?)\n");
    return 1;
  }
  char line[256];
  int lineno = 0;
  while (std::fgets(line, sizeof line, stdin)) {
    ++lineno;
    unsigned long long sguid = 0, dguid = 0;
    if (line[0] == '#' || line[0] == '\n') continue;
    if (std::sscanf(line, "%llx %llx", &sguid, &dguid) != 2) {
      std::fprintf(stderr, "ftroute-pathsl: stdin:%d: expected \"src_port_guid dst_port_guid\" (hex)\n", lineno);
      return 1;
    }
    ibmad_gid_t sgid, dgid;
    make_gid(sgid, sguid);
    make_gid(dgid, dguid);
    uint8_t buf[1024];
    std::memset(buf, 0, sizeof buf);
    int dlid = ib_path_query_via(port, sgid, dgid, &sm, buf);
    if (dlid <= 0) {  // no path (error status from the SA) or no answer: reported, not fatal
      std::printf("- 0x%016llx 0x%016llx\n", sguid, dguid);
      continue;
    }
    std::printf("%u %u %u\n", mad_get_field(buf, 0, IB_SA_PR_SLID_F), mad_get_field(buf, 0, IB_SA_PR_DLID_F),
                mad_get_field(buf, 0, IB_SA_PR_SL_F));
  }
  mad_rpc_close_port(port);
  return std::fflush(stdout) == 0 ? 0 : 1;
}
