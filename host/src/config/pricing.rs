//! The pricing profiles of the configuration: each `[pricing.<name>]` table completed over
//! every layer, or an error naming the key and where the profile was defined.

use super::{Config, ConfigError};
use crate::pricing::{Pricing, ProfileInfo};

impl Config {
    /// Every `[pricing.<name>]` profile, in name order. Each sets every key, in one layer or
    /// over several: a key no layer set is an error naming the profile, the key and where the
    /// profile was defined.
    pub fn pricing_profiles(&self) -> Result<Vec<Pricing>, ConfigError> {
        self.typed
            .pricing
            .iter()
            .map(|(name, table)| {
                table.complete(name).map_err(|missing| {
                    let section = format!("pricing.{name}");
                    // A new profile whose name is close to another's is likely that one
                    // misspelt: `[pricing.antropic]`.
                    let others = self.typed.pricing.keys().map(String::as_str);
                    let suggestion = crate::suggest::closest(name, others.filter(|o| *o != name))
                        .map(|other| format!("; did you mean [pricing.{other}]?"))
                        .unwrap_or_default();
                    ConfigError::BadValue {
                        key: format!("{section}.{missing}"),
                        origin: self
                            .layers
                            .defined(&section)
                            .map(ToString::to_string)
                            .unwrap_or_default(),
                        expected: format!("a value (every key of [{section}] is required)"),
                        found: format!("nothing{suggestion}"),
                    }
                })
            })
            .map(|pricing| {
                // A placement known only once a whole run is known is no client's policy: it
                // is priced beside the profile's own, asked for with `--pricing`.
                let pricing = pricing?;
                match pricing.placement.in_hindsight() {
                    false => Ok(pricing),
                    true => {
                        let key = format!("pricing.{}.breakpoints", pricing.name);
                        Err(ConfigError::BadValue {
                            origin: self.place(&key),
                            expected: "`strategy`, `auto` or `none`, a placement a client sends (`ptc ab --pricing NAME@breakpoints=planned` prices the planned one beside a profile's own)".to_owned(),
                            found: format!("`{}`", pricing.placement),
                            key,
                        })
                    }
                }
            })
            .collect()
    }

    /// What each `[pricing.<name>]` profile says besides its prices, in name order.
    pub fn pricing_info(&self) -> Vec<ProfileInfo> {
        self.typed
            .pricing
            .iter()
            .map(|(name, table)| table.info(name))
            .collect()
    }
}
