// A workload's job columns (sim/job_column.h): what a std::vector does, and views of memory kept
// by another owner that are copied, never written, at the first change.
#include <catch2/catch.hpp>

#include <memory>
#include <random>
#include <vector>

#include "sim/job_column.h"

namespace acme::test {

TEST_CASE("A job column of its own grows, shrinks, copies and compares as a std::vector does", "[job_column]") {
  std::mt19937 rng(7);
  JobColumn<int> column;
  std::vector<int> vector;
  for (int step = 0; step < 5000; ++step) {
    switch (rng() % 6) {
      case 0: case 1: {
        const int v = static_cast<int>(rng() % 1000);
        column.push_back(v), vector.push_back(v);
        break;
      }
      case 2: {
        const std::vector<int> more(rng() % 40, static_cast<int>(step));
        column.insert(column.end(), more.begin(), more.end()), vector.insert(vector.end(), more.begin(), more.end());
        break;
      }
      case 3: {
        const std::size_t n = rng() % (vector.size() + 50);
        column.resize(n, -1), vector.resize(n, -1);
        break;
      }
      case 4: column.reserve(rng() % 3000); break;
      default: if (rng() % 50 == 0) column.clear(), vector.clear();
    }
    REQUIRE(column.size() == vector.size());
    REQUIRE(column.capacity() >= column.size());
  }
  CHECK(std::vector<int>(column.begin(), column.end()) == vector);
  JobColumn<int> copy = column;
  CHECK(copy == column);
  CHECK(copy.data() != column.data());
  copy[0] += 1;
  CHECK_FALSE(copy == column);
  const int* data = column.data();
  JobColumn<int> moved = std::move(column);
  CHECK(moved.data() == data);
  CHECK(column.empty());
  CHECK(JobColumn<int>{1, 2, 3} == JobColumn<int>{1, 2, 3});
  JobColumn<int> self{1, 2, 3};  // grown from its own elements, past its capacity
  self.insert(self.end(), self.begin(), self.end());
  self.push_back(self[0]);
  self.resize(64, self[1]);
  CHECK(std::vector<int>(self.begin(), self.begin() + 8) == std::vector<int>{1, 2, 3, 1, 2, 3, 1, 2});
  CHECK(self.size() == 64);
  CHECK(self.back() == 2);
  CHECK_THROWS_AS(moved.at(moved.size()), std::out_of_range);
}

TEST_CASE("A view shows another owner's array, is copied at the first change, and keeps it alive", "[job_column]") {
  auto array = std::make_shared<std::vector<int>>(std::vector<int>{10, 11, 12, 13, 14});
  std::weak_ptr<std::vector<int>> alive = array;
  JobColumn<int> view;
  view.view(array->data(), 2, array);
  CHECK(view.is_view());
  CHECK(view.size() == 2);
  view.show(4);
  const JobColumn<int>& read = view;
  CHECK(read.data() == array->data());  // read in place
  CHECK(read[3] == 13);

  JobColumn<int> shared = view;  // a copy of a view shares the array
  CHECK(shared.is_view());
  CHECK(std::as_const(shared).data() == array->data());

  view[0] = 99;  // a change: the column is copied first, the array untouched
  CHECK_FALSE(view.is_view());
  CHECK(std::as_const(view).data() != array->data());
  CHECK((*array)[0] == 10);
  CHECK(view == JobColumn<int>{99, 11, 12, 13});
  shared.push_back(7);  // growing copies too
  CHECK(shared == JobColumn<int>{10, 11, 12, 13, 7});
  CHECK((*array)[4] == 14);

  JobColumn<int> last;
  last.view(array->data(), 5, array);
  array.reset();
  CHECK_FALSE(alive.expired());  // the view keeps it
  CHECK(std::as_const(last)[4] == 14);
  last.clear();
  CHECK(alive.expired());
  CHECK_THROWS_AS(last.show(1), std::logic_error);  // no longer a view
}

}  // namespace acme::test
