// flitsim Config: presets and validation.
#include "sim_impl.hpp"

namespace ftroute::flitsim {

Config Config::preset(const std::string& name) {
  Config c;
  if (name == "default" || name.empty()) return c;
  if (name == "penaranda-a") {  // 2-packet queues, 20-cycle routing, fly 8, 256-flit packets
    c.packet_flits = 256, c.buffer_flits = 512, c.routing_delay = 18, c.alloc_delay = 1, c.xbar_delay = 1;
    c.link_latency = 8;
    return c;
  }
  if (name == "penaranda-b" || name == "penaranda-c") {  // 4-packet queues, 4-cycle pipeline, 16 flits
    c.packet_flits = 16, c.buffer_flits = 64, c.routing_delay = 2, c.alloc_delay = 1, c.xbar_delay = 1;
    c.link_latency = 1;
    return c;
  }
  if (name == "zarza-nac") {  // VCT, no VCs, 2-packet buffers, NAC on, t_f = 6
    c.num_vcs = 1, c.packet_flits = 16, c.buffer_flits = 32, c.nac = true, c.nac_tf = 6;
    return c;
  }
  if (name == "booksim") {  // BookSim2's IQ router with its default delays (docs/flitsim.md)
    c.set_model(RouterModel::BookSim);
    return c;
  }
  throw OptionError("unknown flitsim preset '" + name +
                    "' (known: default, penaranda-a, penaranda-b, penaranda-c, zarza-nac, booksim)");
}

void Config::set_model(RouterModel m) {
  const Config d;
  const bool bs = m == RouterModel::BookSim;
  model = m;
  switching = bs ? Switching::Wormhole : d.switching;
  allocator = bs ? Allocator::ISlip : d.allocator;  // BookSim2 vc_allocator / sw_allocator = islip
  islip_iterations = bs ? 1 : d.islip_iterations;   // BookSim2 alloc_iters = 1
  routing_delay = bs ? 1 : d.routing_delay;
  vc_alloc_delay = bs ? 1 : d.vc_alloc_delay;
  alloc_delay = bs ? 1 : d.alloc_delay;  // BookSim2 sw_alloc_delay
  xbar_delay = bs ? 1 : d.xbar_delay;    // BookSim2 st_prepare_delay + st_final_delay
  credit_delay = bs ? 0 : d.credit_delay;
  link_latency = bs ? 1 : d.link_latency;
  wait_tail_credit = false;
  va_per_vc = bs;     // BookSim2's VC allocator: iSLIP over input VCs x output VCs
  eject_any_vc = bs;  // BookSim2's dim_order torus: every VC at the destination router
}

void Config::validate() const {
  auto need = [](bool ok, const std::string& m) {
    if (!ok) throw OptionError("flitsim: " + m);
  };
  need(num_vcs >= 0 && num_vcs <= 16, "num_vcs must be 0..16");
  need(packet_flits >= 1 && packet_flits <= 65535, "packet_flits must be 1..65535");
  need(buffer_flits >= 1, "buffer_flits must be >= 1");
  need(switching == Switching::Wormhole || buffer_flits >= packet_flits,
       "virtual cut-through needs buffer_flits >= packet_flits");
  need(link_latency >= 1 && link_latency <= 100000, "link_latency must be 1..100000");
  if (model == RouterModel::BookSim) {
    need(credit_delay >= 0 && credit_delay <= 100000, "credit_delay must be 0..100000");
    need(switching == Switching::Wormhole, "the BookSim router model is wormhole (per-flit credits)");
    need(vc_alloc_delay >= 1 && alloc_delay >= 1 && xbar_delay >= 1,
         "the BookSim router model needs vc_alloc_delay, alloc_delay and xbar_delay >= 1 (as BookSim2)");
    need(vc_alloc_delay <= 100000 && alloc_delay <= 100000 && xbar_delay <= 100000,
         "pipeline delays must be <= 100000");
    need(!nac, "NAC is defined for the InfiniBand router model (virtual cut-through) only");
  } else {
    need(credit_delay >= 1 && credit_delay <= 100000,
         "credit_delay must be 1..100000 (0 is legal in the BookSim router model)");
  }
  need(routing_delay >= 0 && alloc_delay >= 0 && xbar_delay >= 0, "pipeline delays must be >= 0");
  need(islip_iterations >= 1, "islip_iterations must be >= 1");
  need(threads >= 0 && threads <= 64, "threads must be 0..64 (0 = hardware threads)");
  need(hop_limit >= 1, "hop_limit must be >= 1");
  need(deadlock_timeout >= 1, "deadlock_timeout must be >= 1");
  need(nac_tf >= 1 && nac_period >= 1, "nac_tf and nac_period must be >= 1");
  need(!nac || switching == Switching::VirtualCutThrough, "NAC is defined for virtual cut-through only");
  need(ftdrb_ewma > 0 && ftdrb_ewma <= 1, "ftdrb_ewma must be in (0, 1]");
  need(ftdrb_thl >= 0 && ftdrb_tol >= 0, "ftdrb_thl and ftdrb_tol must be >= 0");
  need(ftdrb_probe_every >= 0, "ftdrb_probe_every must be >= 0 (0 = never probe)");
  need(ftdrb_permanent_after >= 1, "ftdrb_permanent_after must be >= 1");
  need(ftdrb_notify_hop_cycles >= 0, "ftdrb_notify_hop_cycles must be >= 0");
  need(escape_fallback != FaultPolicy::Escape, "escape_fallback must be Drop or Hold");
  need(sl_spread >= 1 && sl_spread <= 16, "sl_spread must be 1..16");
  need(sl_spread == 1 || (lid_policy != LidPolicy::FtDrb && fault_policy != FaultPolicy::Escape),
       "the SL spread does not combine with FT-DRB sources or escape paths (both set the SL)");
}

}  // namespace ftroute::flitsim
