//===- Callback.h - a copyable type-erased callable ---------------*- C++
//-*-===//
//
// tgc::Callback<R(Args...)> holds any callable with that signature, like
// std::function (copies copy the callable; an empty one converts to false),
// without <functional>, which costs a user's translation unit more to parse
// than the rest of tgc's API.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_CALLBACK_H
#define TGC_CALLBACK_H

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

namespace tgc {

template <typename Signature> class Callback;

template <typename R, typename... Args> class Callback<R(Args...)> {
public:
  Callback() = default;
  Callback(std::nullptr_t) {}
  /// Holds a copy of `callable` (a null function pointer gives an empty
  /// callback).
  template <typename F,
            typename = std::enable_if_t<
                !std::is_same_v<std::remove_cvref_t<F>, Callback> &&
                !std::is_member_pointer_v<std::decay_t<F>> &&
                std::is_invocable_r_v<R, std::decay_t<F> &, Args...>>>
  Callback(F &&callable) {
    using D = std::decay_t<F>;
    if constexpr (std::is_pointer_v<D>) {
      if (callable == nullptr)
        return;
    } else if constexpr (requires { &D::operator bool; }) {
      // An empty callable wrapper (e.g. std::function) gives an empty one.
      if (!static_cast<bool>(callable))
        return;
    }
    impl = std::make_unique<Model<D>>(std::forward<F>(callable));
  }

  Callback(const Callback &other)
      : impl(other.impl ? other.impl->clone() : nullptr) {}
  Callback(Callback &&) noexcept = default;
  Callback &operator=(const Callback &other) {
    if (this != &other)
      impl = other.impl ? other.impl->clone() : nullptr;
    return *this;
  }
  Callback &operator=(Callback &&) noexcept = default;

  explicit operator bool() const { return impl != nullptr; }

  /// Calls the callable; the callback must not be empty.
  R operator()(Args... args) const {
    return impl->call(std::forward<Args>(args)...);
  }

private:
  struct Concept {
    virtual ~Concept() = default;
    virtual R call(Args... args) = 0;
    virtual std::unique_ptr<Concept> clone() const = 0;
  };
  template <typename F> struct Model final : Concept {
    template <typename G> explicit Model(G &&f) : f(std::forward<G>(f)) {}
    R call(Args... args) override {
      if constexpr (std::is_void_v<R>)
        f(std::forward<Args>(args)...);
      else
        return f(std::forward<Args>(args)...);
    }
    std::unique_ptr<Concept> clone() const override {
      return std::make_unique<Model>(f);
    }
    F f;
  };

  std::unique_ptr<Concept> impl;
};

/// A non-owning reference to a callable with this signature (LLVM's
/// function_ref without LLVM), for callbacks used only during the call they
/// are passed to: no allocation, no copy. It must not outlive the callable.
template <typename Signature> class CallbackRef;

template <typename R, typename... Args> class CallbackRef<R(Args...)> {
public:
  template <
      typename F,
      typename = std::enable_if_t<
          !std::is_same_v<std::remove_cvref_t<F>, CallbackRef> &&
          std::is_invocable_r_v<R, std::remove_reference_t<F> &, Args...>>>
  CallbackRef(F &&callable)
      : object(const_cast<void *>(
            static_cast<const void *>(std::addressof(callable)))),
        thunk([](void *object, Args... args) -> R {
          return (*static_cast<std::remove_reference_t<F> *>(object))(
              std::forward<Args>(args)...);
        }) {}

  R operator()(Args... args) const {
    return thunk(object, std::forward<Args>(args)...);
  }

private:
  void *object;
  R (*thunk)(void *, Args...);
};

} // namespace tgc

#endif // TGC_CALLBACK_H
