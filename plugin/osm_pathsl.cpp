// libftroute.so - the SA's path SLs written to a file inside OpenSM (plugin option
// path_sl_dump=FILE; docs/PLUGIN.md "Checking the SLs the SA hands out").
//
// Engines whose deadlock freedom rests on per-path SLs (OpenSM's dfsssp, lash, nue, torus-2QoS;
// ftroute's kns, ft-drb, ...) hand each path's SL to clients through the SA's PathRecords, and
// OpenSM writes no file of them. Asking the SA over the wire takes one PathRecord per pair
// (millions on a 2,000-CA fabric: hours through ibsim). Here, at the end of every sweep that
// brings the subnet up (OSM_EVENT_ID_SUBNET_UP), the plugin asks OpenSM's own SA code the same
// question, osm_get_path_params() (the function the PathRecord handler uses, with no component
// mask: what a Get by SGID/DGID answers), for every (CA port, other end-port LID) pair, holding
// OpenSM's lock for reading as the SA does, and writes the answers in the path-SL format that
// `ftroute check --sl` and ibdmchk -c read: "src_node_guid dlid sl", one line per (source CA,
// DLID), SL 0 included, then a trailer "# end: P pairs, M without path parameters". The file is
// published atomically (temp file + rename), so a reader sees the whole previous or the whole new
// one.
//
// The OpenSM headers are included in the same order as in osm_plugin.cpp (osm_config.h first,
// `delete` renamed around osm_event_plugin.h; docs/INSTALL.md, "header traps").

#define FILE_ID OSM_FILE_SA_PATH_RECORD_C  // borrow a file id for per-module log levels
#include <opensm/osm_config.h>             // FIRST: ENABLE_OSM_PERF_MGR etc. change struct layouts

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "adapter.hpp"
#include "ftroute/atomic_file.hpp"
#include "ftroute/ibdmchk_io.hpp"
#include "ftroute/input_file.hpp"
#include "ftroute/parallel.hpp"

// osm_event_plugin.h names a struct member `delete` (a C++ keyword).
#define delete delete_cb
#include <opensm/osm_file_ids.h>
#include <opensm/osm_event_plugin.h>
#include <opensm/osm_node.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_pkey.h>
#include <opensm/osm_port.h>
#include <opensm/osm_sa.h>
#include <opensm/osm_version.h>
#undef delete

#include "osm_plugin.hpp"

namespace ftroute::plugin::osm_side {

namespace {

struct EndPortRef {
  const osm_port_t* port;
  uint16_t lo, hi;  // LID range (LMC)
  uint64_t node_guid;
  uint8_t port_num;
  bool is_switch;
};

// Every port with a LID, sorted by base LID: CA/router ports and switch port 0.
std::vector<EndPortRef> end_ports(osm_subn_t& subn) {
  std::vector<EndPortRef> v;
  const cl_qmap_t* tbl = &subn.port_guid_tbl;
  for (const cl_map_item_t* it = cl_qmap_head(tbl); it != cl_qmap_end(tbl); it = cl_qmap_next(it)) {
    const auto* p = reinterpret_cast<const osm_port_t*>(it);
    if (!p->p_node || !p->p_physp) continue;
    uint16_t lo = 0, hi = 0;
    osm_port_get_lid_range_ho(p, &lo, &hi);
    if (lo == 0) continue;  // no LID yet
    v.push_back({p, lo, std::max(lo, hi), cl_ntoh64(osm_node_get_node_guid(p->p_node)), osm_physp_get_port_num(p->p_physp),
                 osm_node_get_type(p->p_node) == IB_NODE_TYPE_SWITCH});
  }
  std::sort(v.begin(), v.end(), [](const EndPortRef& a, const EndPortRef& b) { return a.lo < b.lo; });
  return v;
}

struct DumpStats {
  long pairs = 0, missing = 0, disagree = 0;  // disagree: (node, DLID) whose ports got different SLs
  long no_pkey = 0;                           // of the missing: no common partition key
  int max_sl = 0;
  // the first pair (in file order) of each kind the admin must look at: a pair the SA has no path
  // parameters for although the ports share a partition, a (node, DLID) whose ports disagree
  std::string first_missing, first_disagree;

  void add(const DumpStats& o) {
    pairs += o.pairs;
    missing += o.missing;
    disagree += o.disagree;
    no_pkey += o.no_pkey;
    max_sl = std::max(max_sl, o.max_sl);
    if (first_missing.empty()) first_missing = o.first_missing;
    if (first_disagree.empty()) first_disagree = o.first_disagree;
  }
};

// "NODE" port P -> DLID D ("NODE" port Q): the pair as the log names it. Node descriptions come
// from the fabric: quoted with '"' and '\' escaped, control characters as \xNN.
std::string pair_text(const EndPortRef& s, const EndPortRef& d, uint32_t dlid) {
  return ftroute::quote_name(node_label(s.port->p_node)) + " port " + std::to_string(s.port_num) + " -> DLID " +
         std::to_string(dlid) + " (" + ftroute::quote_name(node_label(d.port->p_node)) + " port " +
         std::to_string(d.port_num) + ")";
}

}  // namespace

void dump_path_sls(PluginCtx* c) {
  const std::string& path = c->opts.path_sl_dump;
  if (path.empty() || !c->osm) return;
  osm_opensm_t* osm = c->osm;
  const auto t0 = std::chrono::steady_clock::now();
  DumpStats st;
  std::string engine = "(none)";
  try {
    cl_plock_acquire(&osm->lock);  // read lock, as the SA's PathRecord handler holds it
    struct Unlock {
      cl_plock_t* l;
      ~Unlock() { cl_plock_release(l); }
    } unlock{&osm->lock};
    if (osm->routing_engine_used && osm->routing_engine_used->name) engine = osm->routing_engine_used->name;
    const std::vector<EndPortRef> eps = end_ports(osm->subn);
    // Sources: the CA (and router) nodes, each with its ports; one line per (node, DLID) in the
    // file format, from the node's lowest-numbered port; its other ports are asked too and a
    // different answer is counted (the format holds one SL per node and DLID, as ibdmchk's).
    std::vector<std::vector<const EndPortRef*>> nodes;
    {
      std::vector<const EndPortRef*> cas;
      for (const auto& e : eps)
        if (!e.is_switch) cas.push_back(&e);
      std::stable_sort(cas.begin(), cas.end(), [](const EndPortRef* a, const EndPortRef* b) {
        return a->node_guid != b->node_guid ? a->node_guid < b->node_guid : a->port_num < b->port_num;
      });
      for (const EndPortRef* e : cas) {
        if (nodes.empty() || nodes.back().front()->node_guid != e->node_guid) nodes.emplace_back();
        nodes.back().push_back(e);
      }
    }
    AtomicFile file(path);
    TextOut out(file.sink());
    out.printf("# ftroute path-SL file (ibdmchk -c): src_node_guid dlid sl; the SLs OpenSM's SA answers "
               "(osm_get_path_params), routing engine %s, %s\n",
               ftroute::escape_name(engine).c_str(), OSM_VERSION);
    // Nodes in batches on the cores (osm_get_path_params only reads the subnet, as the SA's
    // concurrent handlers do); each batch's text is written in node order.
    const bool qos_policy = osm->subn.p_qos_policy != nullptr;
    const boolean_t allow_both = osm->subn.opt.allow_both_pkeys;
    const int workers = ftroute::resolve_threads(0, static_cast<long>(nodes.size()));
    const size_t batch = 64;
    struct Part {
      std::string text;
      DumpStats st;
    };
    std::vector<Part> parts(batch);
    for (size_t b0 = 0; b0 < nodes.size(); b0 += batch) {
      const size_t nb = std::min(batch, nodes.size() - b0);
      ftroute::parallel_for(workers, static_cast<long>(nb), 1, [&](int, long i) {
        Part& part = parts[static_cast<size_t>(i)];
        part = Part{};
        const auto& ports = nodes[b0 + static_cast<size_t>(i)];
        char line[64];
        for (const EndPortRef& d : eps)
          for (uint32_t dlid = d.lo; dlid <= d.hi; dlid++) {
            int first = -1, first_port = 0;
            for (const EndPortRef* s : ports) {
              if (s == &d) continue;  // a port to itself is no path
              osm_path_parms_t parms{};
              part.st.pairs++;
              // Ports without a common partition key get no path; the SA would log ERR 1F1B for
              // each such pair (millions with restrictive partitions). Without a QoS policy (which
              // may name the P_Key) that is exactly its answer, so it is not asked.
              if (!qos_policy && !osm_physp_find_common_pkey(s->port->p_physp, d.port->p_physp, allow_both)) {
                part.st.missing++;
                part.st.no_pkey++;
                continue;
              }
              if (osm_get_path_params(&osm->sa, s->port, s->lo, d.port, static_cast<uint16_t>(dlid), &parms) != IB_SUCCESS) {
                part.st.missing++;
                if (part.st.first_missing.empty()) part.st.first_missing = pair_text(*s, d, dlid);
                continue;
              }
              part.st.max_sl = std::max<int>(part.st.max_sl, parms.sl);
              if (first < 0) {
                first = parms.sl;
                first_port = s->port_num;
                const int n = std::snprintf(line, sizeof line, "0x%016" PRIx64 " %u %d\n", s->node_guid, dlid, first);
                part.text.append(line, static_cast<size_t>(n));
              } else if (first != parms.sl) {
                part.st.disagree++;
                if (part.st.first_disagree.empty())
                  part.st.first_disagree = pair_text(*s, d, dlid) + ": SL " + std::to_string(parms.sl) + ", port " +
                                           std::to_string(first_port) + " SL " + std::to_string(first);
              }
            }
          }
      });
      for (size_t i = 0; i < nb; i++) {
        out.put(parts[i].text);
        st.add(parts[i].st);
      }
    }
    PathSlDumpEnd end;
    end.pairs = st.pairs;
    end.missing = st.missing;
    end.disagree = st.disagree;
    out.put(path_sl_dump_end_line(end));
    out.flush();
    file.commit();
  } catch (const std::exception& ex) {
    plog(c, OSM_LOG_ERROR, "ERR FT05: ftroute: path-SL dump to '%s' failed: %s (no file written)", path.c_str(), ex.what());
    return;
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // Pairs apart only by partition are what the admin configured, not an error.
  const bool bad = st.missing > st.no_pkey || st.disagree;
  std::string first;  // which pairs to look at first, by name
  if (st.missing > st.no_pkey && !st.first_missing.empty()) first += "; first without path parameters: " + st.first_missing;
  if (st.disagree && !st.first_disagree.empty()) first += "; first disagreeing: " + st.first_disagree;
  plog(c, bad ? OSM_LOG_ERROR : OSM_LOG_INFO,
       "%sftroute: path SLs of engine %s written to '%s': %ld pairs, SL 0..%d, %ld without path parameters (%ld of "
       "them sharing no partition key), %ld ports disagreeing with their CA's first port, %.2f s%s",
       bad ? "ERR FT05: " : "", engine.c_str(), path.c_str(), st.pairs, st.max_sl, st.missing, st.no_pkey, st.disagree, s,
       first.c_str());
}

}  // namespace ftroute::plugin::osm_side
