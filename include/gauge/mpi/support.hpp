#pragma once
/// \file gauge/mpi/support.hpp
/// What the parts of gauge/mpi.hpp share: MPI calls checked and requests polled with a time limit,
/// a text hash, this host's name and a GPU's NUMA node, the arrival notices that let rank 0 name
/// the ranks missing from an agreement (gauge::mpi::detail), and `node_rank()`.

#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gauge/core/error.hpp"

namespace gauge::mpi {

namespace detail {

/// Throws gauge::Error naming the MPI call and MPI's error string unless `rc` is MPI_SUCCESS.
inline void check(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  throw Error(std::string(call) + " failed: " + std::string(text, static_cast<std::size_t>(length)));
}

/// Polls `request` with MPI_Test (never blocks) until it completes (true) or `timeout_s` passed
/// (false; the request stays pending). Yields the core between polls, so ranks oversubscribed on
/// few cores still progress.
inline bool test_until(MPI_Request& request, double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (unsigned polls = 0;; ++polls) {
    int done = 0;
    check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    if (polls > 64) std::this_thread::sleep_for(std::chrono::microseconds(polls > 4096 ? 200 : 10));
    else std::this_thread::yield();
  }
}

/// FNV-1a (64 bits) of `text`, cut to 52 bits so it travels exactly as a double.
inline double text_hash(const std::string& text) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return static_cast<double>(h & ((std::uint64_t{1} << 52) - 1));
}

/// This host's name (gethostname), "" when unavailable.
inline std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

/// NUMA node of the PCI device `bus_id` ("0000:19:00.0"; CUDA's 8-digit domain is shortened),
/// from /sys/bus/pci/devices/<id>/numa_node; empty when unknown or -1.
inline std::optional<int> numa_node_of(std::string bus_id) {
  for (auto& c : bus_id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto colon = bus_id.find(':');
  if (colon != std::string::npos && colon > 4) bus_id = bus_id.substr(colon - 4);
  std::ifstream in("/sys/bus/pci/devices/" + bus_id + "/numa_node");
  int node = -1;
  if (!(in >> node) || node < 0) return std::nullopt;
  return node;
}

/// Ranks' entries into agreements, told to rank 0 by non-blocking sends (tag `tag`), so that rank
/// 0 can name the ranks that never reached an agreement that timed out.
class Arrivals {
 public:
  static constexpr int tag = 7713;
  Arrivals(MPI_Comm comm, int rank, int size) : comm_(comm), rank_(rank), last_(static_cast<std::size_t>(size), -1) {}
  Arrivals(const Arrivals&) = delete;
  Arrivals& operator=(const Arrivals&) = delete;
  ~Arrivals() {
    for (auto& s : sends_) MPI_Request_free(&s->request);  // eager 16-byte sends: complete locally
  }
  /// This rank enters agreement number `seq` of experiment `experiment`.
  void enter(long long experiment, long long seq) {
    if (rank_ == 0) {
      last_[0] = seq;
      drain(experiment);
      return;
    }
    prune();
    auto s = std::make_unique<Send>();
    s->message = {experiment, seq};
    check(MPI_Isend(s->message.data(), 2, MPI_LONG_LONG, 0, tag, comm_, &s->request), "MPI_Isend");
    sends_.push_back(std::move(s));
  }
  /// Rank 0: the ranks whose last agreement of `experiment` is before `seq`.
  std::vector<int> behind(long long experiment, long long seq) {
    drain(experiment);
    std::vector<int> out;
    for (std::size_t r = 0; r < last_.size(); ++r)
      if (last_[r] < seq) out.push_back(static_cast<int>(r));
    return out;
  }

 private:
  struct Send {
    std::array<long long, 2> message{};
    MPI_Request request = MPI_REQUEST_NULL;
  };
  void drain(long long experiment) {
    while (true) {
      int there = 0;
      MPI_Status status;
      check(MPI_Iprobe(MPI_ANY_SOURCE, tag, comm_, &there, &status), "MPI_Iprobe");
      if (!there) return;
      std::array<long long, 2> m{};
      check(MPI_Recv(m.data(), 2, MPI_LONG_LONG, status.MPI_SOURCE, tag, comm_, MPI_STATUS_IGNORE), "MPI_Recv");
      if (m[0] == experiment) last_[static_cast<std::size_t>(status.MPI_SOURCE)] = std::max(last_[static_cast<std::size_t>(status.MPI_SOURCE)], m[1]);
    }
  }
  void prune() {
    for (auto it = sends_.begin(); it != sends_.end();) {
      int done = 0;
      check(MPI_Test(&(*it)->request, &done, MPI_STATUS_IGNORE), "MPI_Test");
      it = done ? sends_.erase(it) : it + 1;
    }
  }
  MPI_Comm comm_;
  int rank_;
  std::vector<long long> last_;
  std::vector<std::unique_ptr<Send>> sends_;
};

}  // namespace detail

/// This process's place on its node: its rank among the ranks of `comm` that share its memory
/// (MPI_Comm_split_type with MPI_COMM_TYPE_SHARED: the ranks on the same host) and their count.
/// One GPU per rank of a node is then GPU `rank` of that node. Throws Error naming a failing call.
struct NodeRank {
  int rank = 0;  ///< 0-based, among the ranks on this node
  int size = 1;  ///< ranks on this node
};
inline NodeRank node_rank(MPI_Comm comm = MPI_COMM_WORLD) {
  int world = 0;
  detail::check(MPI_Comm_rank(comm, &world), "MPI_Comm_rank");
  MPI_Comm node = MPI_COMM_NULL;
  detail::check(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, world, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  NodeRank r;
  MPI_Comm_rank(node, &r.rank);
  MPI_Comm_size(node, &r.size);
  MPI_Comm_free(&node);
  return r;
}

}  // namespace gauge::mpi
