#include <catch2/catch.hpp>

#include "harness.h"

namespace acme::test {

TEST_CASE("A job of up to 8 GPUs lands on one node, first fit", "[cluster]") {
  Cluster c(small_cluster(3));
  JobRequest r;
  r.gpu_num = 6;
  r.cpu_num = 16;
  auto p = c.find_first_fit(r);
  REQUIRE(p);
  CHECK(*p == Placement{{0, 6, 16}});
  c.allocate(*p);
  r.gpu_num = 4;
  CHECK(*c.find_first_fit(r) == Placement{{1, 4, 16}});
  r.gpu_num = 2;
  CHECK(*c.find_first_fit(r) == Placement{{0, 2, 16}});
}

TEST_CASE("A multi-node job gets gpu_num / node_num GPUs per node, spread evenly", "[cluster]") {
  Cluster c(small_cluster(4));
  JobRequest r;
  r.gpu_num = 16;
  r.node_num = 2;
  r.cpu_num = 100;
  CHECK(*c.find_first_fit(r) == Placement{{0, 8, 50}, {1, 8, 50}});
  r.gpu_num = 10;
  r.node_num = 3;
  r.cpu_num = 0;
  CHECK(*c.find_first_fit(r) == Placement{{0, 4, 0}, {1, 3, 0}, {2, 3, 0}});
}

TEST_CASE("Placement skips nodes without enough free GPUs or cores", "[cluster]") {
  Cluster c(small_cluster(3));
  c.allocate({{0, 1, 0}, {1, 0, 60}});
  JobRequest r;
  r.gpu_num = 8;
  r.cpu_num = 8;
  CHECK(*c.find_first_fit(r) == Placement{{2, 8, 8}});
  r.gpu_num = 0;
  CHECK(*c.find_first_fit(r) == Placement{{0, 0, 8}});
  r.gpu_num = 16;
  r.node_num = 2;
  r.cpu_num = 16;  // 8 GPUs and 8 cores per node: only node 2 has both
  CHECK_FALSE(c.find_first_fit(r).has_value());
  r.cpu_num = 8;  // 4 cores per node: node 1 has 4 left
  CHECK(*c.find_first_fit(r) == Placement{{1, 8, 4}, {2, 8, 4}});
}

TEST_CASE("Jobs that can never fit are named with a reason", "[cluster]") {
  Cluster c(small_cluster(2));
  JobRequest r;
  r.gpu_num = 16;
  r.node_num = 1;
  CHECK(c.never_fits(r) == RejectReason::GpusExceedNode);
  r.node_num = 3;
  CHECK(c.never_fits(r) == RejectReason::NodesExceedCluster);
  r.gpu_num = 8;
  r.node_num = 1;
  r.cpu_num = 65;
  CHECK(c.never_fits(r) == RejectReason::CpusExceedNode);
  r.cpu_num = 64;
  CHECK(c.never_fits(r) == RejectReason::None);
}

TEST_CASE("Handing out a GPU twice is caught", "[cluster]") {
  Cluster c(small_cluster(1));
  c.allocate({{0, 6, 0}});
  CHECK_THROWS_AS(c.allocate({{0, 3, 0}}), std::logic_error);
  CHECK_THROWS_AS(c.allocate({{0, 1, 0}, {0, 1, 0}}), std::logic_error);
  CHECK_THROWS_AS(c.release({{0, 7, 0}}), std::logic_error);
  CHECK(c.free_gpus() + c.allocated_gpus() == 8);
}

TEST_CASE("free_gpus_in counts the free GPUs of a range of nodes, up and not cordoned", "[cluster]") {
  ClusterSpec spec = small_cluster(5);
  spec.reserved_nodes = 2;  // nodes 3 and 4
  Cluster c(spec);
  const auto by_hand = [&](Cluster::NodeRange range) {
    int free = 0;
    for (int n = range.first; n < range.last; ++n)
      if (!c.is_down(n) && !c.is_cordoned(n)) free += c.free_gpus_on(n);
    return free;
  };
  const auto check_all = [&] {
    for (const Cluster::NodeRange range : {Cluster::NodeRange{0, 5}, Cluster::NodeRange{0, 3},
                                           Cluster::NodeRange{3, 5}, Cluster::NodeRange{1, 4}})
      CHECK(c.free_gpus_in(range) == by_hand(range));
  };
  check_all();
  c.allocate({{0, 3, 0}, {3, 5, 0}, {4, 8, 0}});
  check_all();
  c.cordon(3);
  c.take_down(1);
  check_all();
  c.release({{3, 5, 0}});
  c.bring_up(1);
  check_all();
  c.uncordon(3);
  check_all();
  CHECK(c.free_gpus_in({3, 5}) == 8);
}

}  // namespace acme::test
