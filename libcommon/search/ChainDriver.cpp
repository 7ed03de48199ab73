// A list of drivers as one (--driver rules,waits): from each node the drivers propose in turn,
// one proposal each, a driver that has nothing more from that node dropping out, so that a
// short budget still hears from every driver. Every driver sees every feedback and every
// redirect; the controller composes their verified commits as it composes any (disjoint
// lines), so one run takes the rules' gains and the wait placement's together.
#include "search/Driver.h"

#include <map>

namespace asmevo::search {

namespace {

class ChainDriver : public Driver {
public:
  explicit ChainDriver(std::vector<std::unique_ptr<Driver>> Ds) : Drivers(std::move(Ds)) {}

  std::string name() const override {
    std::string S;
    for (const auto &D : Drivers)
      S += (S.empty() ? "" : ",") + D->name();
    return S;
  }

  std::vector<std::string> plan(const NodeView &N, const nlohmann::json &C) override {
    for (auto &D : Drivers) {
      std::vector<std::string> P = D->plan(N, C);
      if (!P.empty())
        return P;
    }
    return {};
  }

  std::optional<Proposal> propose(const NodeView &N, const nlohmann::json &C) override {
    Turn &T = Turns[N.Id];
    if (T.Done.empty())
      T.Done.assign(Drivers.size(), false);
    for (size_t Tries = 0; Tries < Drivers.size(); ++Tries) {
      size_t K = T.Next;
      T.Next = (T.Next + 1) % Drivers.size();
      if (T.Done[K])
        continue;
      if (std::optional<Proposal> P = Drivers[K]->propose(N, C))
        return P;
      T.Done[K] = true;
    }
    return std::nullopt;
  }

  void feedback(const Feedback &F) override {
    for (auto &D : Drivers)
      D->feedback(F);
  }
  void redirect(const std::string &Why) override {
    for (auto &D : Drivers)
      D->redirect(Why);
  }
  // Spent only when every driver is.
  std::string spent() const override {
    std::string S;
    for (const auto &D : Drivers) {
      if (D->spent().empty())
        return "";
      S += (S.empty() ? "" : "; ") + D->spent();
    }
    return S;
  }
  std::string preferredStart() override {
    for (auto &D : Drivers) {
      std::string S = D->preferredStart();
      if (!S.empty())
        return S;
    }
    return "";
  }
  nlohmann::json usage() const override {
    nlohmann::json U = nlohmann::json::object();
    for (const auto &D : Drivers)
      if (nlohmann::json X = D->usage(); !X.is_null())
        U[D->name()] = X;
    return U.empty() ? nlohmann::json() : U;
  }

private:
  struct Turn {
    size_t Next = 0;
    std::vector<bool> Done;
  };
  std::vector<std::unique_ptr<Driver>> Drivers;
  std::map<std::string, Turn> Turns;
};

} // namespace

std::unique_ptr<Driver> makeChainDriver(std::vector<std::unique_ptr<Driver>> Drivers) {
  return std::make_unique<ChainDriver>(std::move(Drivers));
}

} // namespace asmevo::search
