package web

import (
	"github.com/restls/restls/config"
	"github.com/restls/restls/workspace"
)

// pathDisplay is how web clients are shown the paths of snap's sources.
func pathDisplay(snap *config.Snapshot) workspace.PathDisplay {
	if snap == nil {
		return workspace.PathDisplay{}
	}
	return workspace.NewPathDisplay(workspace.RelativeTo(snap.Sources.ConfigRoot), snap.Sources)
}
