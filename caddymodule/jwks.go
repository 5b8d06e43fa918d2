package caddymodule

import (
	"context"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/pgrest/caddy-pgrest/jwtauth"
)

// remoteKeySets holds the key sets of JWKS URLs (jwt_secret https://…),
// by URL, shared by the runtimes that verify with them: across in-database
// configuration reloads and Caddy config reloads, as pools are. A rebuilt
// configuration with the same URL uses the keys fetched already, with
// their refresh schedule and their limit on fetches for unknown kids: a
// reload neither fetches again (so NOTIFYs cannot make pgrest hammer the
// provider) nor starts without keys when the provider fails just then.
var remoteKeySets = caddy.NewUsagePool()

// sharedKeySet is a key set as the usage pool holds it.
type sharedKeySet struct {
	*jwtauth.RemoteKeys
	stop context.CancelFunc
}

// Destruct stops the refresh once the last runtime using the set is gone.
func (s *sharedKeySet) Destruct() error {
	s.stop()
	return nil
}

// takeKeySet takes a reference to the key set of secret when it is a JWKS
// URL, starting it (and fetching it once) if no runtime holds it yet;
// release gives the reference back. Other secrets give no set and a
// release that does nothing.
func takeKeySet(secret string, logger *zap.Logger) (keys *jwtauth.RemoteKeys, release func(), err error) {
	if !jwtauth.IsKeySetURL(secret) {
		return nil, func() {}, nil
	}
	val, _, err := remoteKeySets.LoadOrNew(secret, func() (caddy.Destructor, error) {
		// The set outlives the config that started it: its refresh
		// ends when its last user is gone, not with that config.
		ctx, stop := context.WithCancel(context.Background())
		keys, err := jwtauth.StartRemoteKeys(ctx, secret, jwtauth.FetchOptions{
			OnError: func(err error) {
				logger.Error("fetching the JWKS; the last keys fetched stay in use", zap.Error(err))
			},
			OnWarning: func(err error) {
				logger.Warn("ignoring symmetric keys published at the JWKS URL", zap.Error(err))
			},
		})
		if err != nil {
			stop()
			return nil, err
		}
		return &sharedKeySet{RemoteKeys: keys, stop: stop}, nil
	})
	if err != nil {
		return nil, nil, err
	}
	release = func() {
		if _, err := remoteKeySets.Delete(secret); err != nil {
			logger.Warn("releasing the JWKS", zap.Error(err))
		}
	}
	return val.(*sharedKeySet).RemoteKeys, release, nil
}
