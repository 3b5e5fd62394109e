// A callable passed down a call without being owned or copied: what std::function costs (a heap
// allocation for a lambda capturing more than two references) a walk run at every event cannot
// pay. It refers to the callable, which must outlive it: pass a lambda as an argument, never keep
// a FunctionRef past the call it was given to.
#pragma once

#include <memory>
#include <type_traits>
#include <utility>

namespace acme {

template <class Signature>
class FunctionRef;

template <class R, class... Args>
class FunctionRef<R(Args...)> {
 public:
  template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, FunctionRef> && std::is_invocable_r_v<R, F&, Args...>)
  FunctionRef(F&& f)  // NOLINT(google-explicit-constructor): stands for the callable it refers to
      : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* object, Args... args) -> R {
          return (*static_cast<std::remove_reference_t<F>*>(object))(std::forward<Args>(args)...);
        }) {}
  R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

 private:
  void* object_;
  R (*call_)(void*, Args...);
};

}  // namespace acme
