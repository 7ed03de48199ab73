// Whose failure a differential check's failure is (DiffResult.h).
#include "check/DiffResult.h"

namespace asmevo::check {

DiffResult diffResultOf(Report R) {
  DiffResult D;
  D.Result = R.Result;
  D.Message = R.Message;
  if (R.Body.is_object() && R.Body.value("failed", "") == "K0")
    D.Failed = Blame::K0;
  else if (R.Result == Outcome::InputError)
    D.Failed = Blame::Inputs;
  else if (R.Result != Outcome::Ok && R.Result != Outcome::Interrupted)
    D.Failed = Blame::Candidate;
  D.Rep = std::move(R);
  return D;
}

} // namespace asmevo::check
