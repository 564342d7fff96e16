package workflow

import (
	"pixdash/api"
	"pixdash/state"
)

// FeeSource keeps the fee learned from the service (a refusal that named it); *state.Store
// implements it.
type FeeSource interface {
	LearnedFee() (state.LearnedFee, bool)
}

// FeeEstimate is the fee per payment the figures use where the service reported none: the one
// rule of the Sales view, the Today strip, the dashboard's close, `pixdash close` and the
// exports. It is the profile's pix_fee when set, else the fee learned from the service (src may
// be nil); ok is false when neither is known (the figures then say the fee is unknown, never
// zero). A fee the service reported for a payment always wins over the estimate: the store
// uses the estimate only for payments without one.
func FeeEstimate(src FeeSource, pixFee api.Money, hasPixFee bool) (fee api.Money, ok bool) {
	if hasPixFee {
		return pixFee, true
	}
	if src != nil {
		if lf, ok := src.LearnedFee(); ok {
			return lf.Fee, true
		}
	}
	return 0, false
}

// FeeEstimate is FeeEstimate for the session: its profile's pix_fee and its store's learned fee.
func (s *Session) FeeEstimate() (api.Money, bool) {
	if s == nil {
		return 0, false
	}
	if s.Store == nil {
		return FeeEstimate(nil, s.PixFee, s.HasPixFee)
	}
	return FeeEstimate(s.Store, s.PixFee, s.HasPixFee)
}
